// The contracts and errors the pipeline's API takes and throws (PorterError, ObjectSource, …)
// come with it.
@_exported import PorterCore
