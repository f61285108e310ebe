#ifndef FETCHLOG_CLMDB_SHIM_H
#define FETCHLOG_CLMDB_SHIM_H
#include <lmdb.h>
#endif
