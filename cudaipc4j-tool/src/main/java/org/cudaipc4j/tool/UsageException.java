package org.cudaipc4j.tool;

/** A request that cannot be served as given (e.g. a device that does not exist): exit {@link ExitCodes#USAGE}. */
public final class UsageException extends RuntimeException {
    public UsageException(String message) {
        super(message);
    }
}
