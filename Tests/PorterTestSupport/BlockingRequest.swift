import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    /// Sends `request` and waits for its answer, on the calling thread (tests and test servers
    /// only: it blocks a thread). Throws the transfer's error; a response that is not HTTP is an error too.
    public func blockingData(for request: URLRequest) throws -> (data: Data, response: HTTPURLResponse) {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: (Data?, URLResponse?, (any Error)?)
        dataTask(with: request) { data, response, error in
            result = (data, response, error)
            done.signal()
        }.resume()
        done.wait()
        if let error = result.2 { throw error }
        guard let response = result.1 as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return (result.0 ?? Data(), response)
    }
}
