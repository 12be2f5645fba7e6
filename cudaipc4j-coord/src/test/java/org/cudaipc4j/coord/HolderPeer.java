package org.cudaipc4j.coord;

/**
 * The importer of {@link ExportHoldersTest}: {@code TABLE KEY} opens the table, holds KEY, prints {@code HOLDING},
 * and on a line from stdin releases it, prints {@code RELEASED} and exits; killed meanwhile, it never releases.
 */
public final class HolderPeer {
    private HolderPeer() {}

    public static void main(String[] args) throws Exception {
        try (ExportHolders table = ExportHolders.open(args[0]);
             ExportHolders.Hold hold = table.hold(Long.parseLong(args[1]))) {
            System.out.println("HOLDING");
            System.out.flush();
            System.in.read();
        }
        System.out.println("RELEASED");
    }
}
