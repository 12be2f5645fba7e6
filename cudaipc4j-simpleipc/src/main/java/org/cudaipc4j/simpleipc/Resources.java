package org.cudaipc4j.simpleipc;

import java.util.ArrayList;
import java.util.List;
import org.cudaipc4j.tool.Failures;

/**
 * An owner for a growing list of resources, closed in reverse order of adding. The first cleanup failure is
 * thrown with later ones attached as suppressed; used in try-with-resources, a failure of the body stays primary.
 */
final class Resources<T extends AutoCloseable> implements AutoCloseable {
    private final List<T> items = new ArrayList<>();

    T add(T item) {
        items.add(item);
        return item;
    }

    T get(int i) {
        return items.get(i);
    }

    int size() {
        return items.size();
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        for (int i = items.size() - 1; i >= 0; i--) {
            try {
                items.get(i).close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IllegalStateException("cleanup failed: " + Failures.oneLine(e), e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        items.clear();
        if (failure != null) {
            throw failure;
        }
    }
}
