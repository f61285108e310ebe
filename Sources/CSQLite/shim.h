#ifndef FETCHLOG_CSQLITE_SHIM_H
#define FETCHLOG_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a destructor pointer, which Swift cannot
// import: these bind with it, so SQLite copies the bytes before the call returns.
static inline int fetchlog_sqlite3_bind_text(sqlite3_stmt *statement, int index, const char *text, int bytes) {
    return sqlite3_bind_text(statement, index, text, bytes, SQLITE_TRANSIENT);
}
static inline int fetchlog_sqlite3_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, int count) {
    return sqlite3_bind_blob(statement, index, bytes, count, SQLITE_TRANSIENT);
}
static inline void fetchlog_sqlite3_result_text(sqlite3_context *context, const char *text, int bytes) {
    sqlite3_result_text(context, text, bytes, SQLITE_TRANSIENT);
}
// sqlite3_db_config is variadic, which Swift cannot call.
static inline int fetchlog_sqlite3_disable_load_extension(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)0);
}
static inline int fetchlog_sqlite3_defensive(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
}
static inline int fetchlog_sqlite3_no_trusted_schema(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
}
#endif
