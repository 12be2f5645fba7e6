package org.cudaipc4j.simpleipc;

/** Where a step's time goes, summed over all steps (reported as total.* in the JSON report). */
final class StepTimes {
    long waitNs;
    long fillNs;
    long recordNs;
    long barrierNs;
    long deviceWaitNs;
    long outputNs;

    /** One step: started, its wait done, its fill launched, its record made, its barrier passed. */
    void step(long started, long waited, long filled, long recorded, long passed) {
        waitNs += waited - started;
        fillNs += filled - waited;
        recordNs += recorded - filled;
        barrierNs += passed - recorded;
    }

    void report(PhaseLog phases) {
        phases.mark(PhaseLog.TOTAL + "streamWaitMicros", waitNs / 1000);
        phases.mark(PhaseLog.TOTAL + "fillLaunchMicros", fillNs / 1000);
        phases.mark(PhaseLog.TOTAL + "recordMicros", recordNs / 1000);
        phases.mark(PhaseLog.TOTAL + "barrierMicros", barrierNs / 1000);
        phases.mark(PhaseLog.TOTAL + "deviceWaitMicros", deviceWaitNs / 1000);
        phases.mark(PhaseLog.TOTAL + "outputMicros", outputNs / 1000);
    }
}
