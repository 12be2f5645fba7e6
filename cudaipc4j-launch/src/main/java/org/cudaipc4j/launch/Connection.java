package org.cudaipc4j.launch;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;

/** One TCP connection between rank 0 and another rank: its socket, and writes that never interleave. */
final class Connection {
    final Socket socket;
    final InputStream in;
    private final OutputStream out;
    private final Object writeLock = new Object();
    private boolean outputShut;

    /** The rank at the other end, once known. */
    volatile int rank = -1;
    /** The other end said goodbye. */
    volatile boolean saidGoodbye;
    /** A fault was reported for the other end. */
    volatile boolean faulted;
    /** This end's reader saw the end of the stream (or an error). */
    volatile boolean ended;

    Connection(Socket socket) throws IOException {
        this.socket = socket;
        socket.setTcpNoDelay(true);
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** Sends {@code frame}; false when this end's output is shut or the connection is broken. */
    boolean send(byte[] frame) {
        synchronized (writeLock) {
            if (outputShut) {
                return false;
            }
            try {
                Wire.write(out, frame);
                return true;
            } catch (IOException e) {
                return false; // the reader sees the broken connection and reports it
            }
        }
    }

    /** Sends {@code frame}, if any, as the last one, then half-closes: the other end reads the end of the stream. */
    void finish(byte[] frame) {
        synchronized (writeLock) {
            if (outputShut) {
                return;
            }
            if (frame != null) {
                send(frame);
            }
            outputShut = true;
            try {
                socket.shutdownOutput();
            } catch (IOException e) {
                // already broken: nothing more to say
            }
        }
    }

    void close() {
        synchronized (writeLock) {
            outputShut = true;
        }
        try {
            socket.close();
        } catch (IOException e) {
            // closing is all that is left to do
        }
    }
}
