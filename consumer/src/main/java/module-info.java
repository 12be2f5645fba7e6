/** A user's module on the module path, reading descriptors through the interop library's exported API. */
module example.consumer {
    requires org.cudaipc4j.interop;
}
