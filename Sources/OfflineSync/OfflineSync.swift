// The library as its users import it: `import OfflineSync` gives every layer's public API.
@_exported public import OfflineSyncCore
@_exported public import OfflineSyncStore
@_exported public import OfflineSyncJournal
@_exported public import OfflineSyncHTTP
@_exported public import OfflineSyncEngine
