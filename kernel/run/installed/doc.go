// Package installed is the project's added skills as a run reads them:
// registry refs, the installed version a ref binds (the workspace's own
// copy first), each copy verified against its signature at every load,
// what a fetch before a run adds, and the catalog runx list skills shows.
// It sits below the engine: kernel/run reaches it with plain data (Skills)
// and a fetcher port (RegistryFetcher), and it imports nothing of the
// engine.
package installed
