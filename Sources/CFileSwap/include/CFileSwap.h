#ifndef CFILESWAP_H
#define CFILESWAP_H

/// Swaps two paths in one step (Linux renameat2 RENAME_EXCHANGE, macOS renamex_np RENAME_SWAP).
/// Returns 0, or -1 with errno set (ENOSYS or EINVAL where the system or file system cannot).
int reader_exchange_paths(const char *first, const char *second);

#endif
