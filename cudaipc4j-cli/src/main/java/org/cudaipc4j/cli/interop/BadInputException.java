package org.cudaipc4j.cli.interop;

/** The argument is no descriptor or torch handle this reader accepts; the message says what is wrong, in one line. */
final class BadInputException extends RuntimeException {
    BadInputException(String message) {
        super(message);
    }
}
