// The sample server's API, generated at build time by swift-openapi-generator's build plugin from
// openapi.yaml (a link to the document ImageStoreServer serves at /openapi.yaml): `Client`,
// `Operations` and `Components`, at `package` access. Nothing generated is committed.
