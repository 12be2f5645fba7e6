package org.cudaipc4j.base;

/** The settings this module reads (see {@link Setting}). */
final class BaseSettings {
    private BaseSettings() {}

    /** Shared-memory waits park with a backoff instead of a futex. */
    static final Setting<Boolean> NO_FUTEX = Setting.switchProperty("cudaipc4j.nofutex",
            "true: the shared-memory waits park with a growing backoff instead of blocking on a Linux futex");
}
