// README-EXAMPLE: rest-import
import PorterPipeline
import PorterREST

/// Imports the dataset in `folder` into the Parse Server at `url` (`https://host/parse`) with
/// its master key; the whole dataset is validated before the first object is sent.
func importDataset(folder: String, toServer url: String, applicationId: String, masterKey: String) async throws -> ImportReport {
    let address = try ParseServerAddress(url: url, applicationId: applicationId, masterKey: masterKey, restAPIKey: nil)
    let sink = RESTSink(client: ParseRESTClient(address: address))
    return try await Importer(manifest: ManifestLoader.load(folder)).run(into: sink)
}
// README-EXAMPLE-END
