#include <sqlite3.h>

/// Turns off SQLite's memory statistics (and the global mutex taken on every allocation for
/// them). `sqlite3_config` is variadic, so Swift cannot call it directly.
static inline int csqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
