// Optional C libraries loaded with dlopen when their part first runs, so a
// board that does not use a part neither maps its library (and what that
// drags in) nor needs it installed. One loader for all of them: each shim
// lists its symbols and calls through the pointers it fills in.
#ifndef CAST_GATEWAY_LIBRARY_LOADER_H
#define CAST_GATEWAY_LIBRARY_LOADER_H

#include <stddef.h>

/// One symbol to resolve into `*slot`.
struct cg_symbol {
    const char *name;
    void **slot;
};

/// A library and its symbol table. Define one per library, statically, with
/// CG_LIBRARY; `cg_library_load` fills it in once.
struct cg_library {
    const char *soname;
    /// The Debian package that ships `soname`, for the message.
    const char *package;
    const struct cg_symbol *symbols;
    size_t count;
    int loaded;
    char error[320];
};

#define CG_LIBRARY(soname, package, symbols) \
    { (soname), (package), (symbols), sizeof(symbols) / sizeof((symbols)[0]), 0, { 0 } }

/// Loads the library and resolves every symbol (once; a failure is tried
/// again next time, so installing the package later needs no restart).
/// Returns 1 when usable; otherwise 0, with what happened and what to do in
/// `error` ("cannot load libfoo.so.1 (reason): install libfoo1").
int cg_library_load(struct cg_library *library, char *error, size_t error_size);

/// Traps with the symbol's name: a wrapper was called before its library
/// loaded (a bug in the caller, which must check `cg_library_load` first).
void cg_library_not_loaded(const struct cg_library *library, const char *symbol) __attribute__((noreturn));

/* A shim lists its library's functions once, as
 *   #define CG_FOO_FUNCTIONS(F, V) F(int, foo_open, (const char *path), (path)) V(foo_close, (struct foo *f), (f))
 * (F returns a value, V returns void; a function only the shim's C calls,
 * variadic ones among them, may leave out all but its name). These turn the
 * list into the wrappers' declarations (header: CG_DECLARE), and in the .c
 * file (one library each) the table `cg_table`, the library `cg_loaded` and
 * the wrappers (CG_LIBRARY_TABLE, CG_WRAPPER; CG_SHIM makes all three and the
 * load function). A wrapper is cg_<function> with the library's own signature. */
#define CG_DECLARE(ret, name, params, args) ret cg_##name params;
#define CG_DECLARE_VOID(name, params, args) void cg_##name params;
#define CG_SLOT(ret, name, params, args) __typeof__(name) *name;
#define CG_SLOT_VOID(name, params, args) __typeof__(name) *name;
#define CG_SYMBOL(ret, name, params, args) { #name, (void **)&cg_table.name },
#define CG_SYMBOL_VOID(name, params, args) { #name, (void **)&cg_table.name },
#define CG_LIBRARY_TABLE(soname, package, LIST)                                                \
    static struct {                                                                            \
        LIST(CG_SLOT, CG_SLOT_VOID)                                                            \
    } cg_table;                                                                                \
    static const struct cg_symbol cg_symbols[] = {LIST(CG_SYMBOL, CG_SYMBOL_VOID)};            \
    static struct cg_library cg_loaded = CG_LIBRARY(soname, package, cg_symbols);
#define CG_WRAPPER(ret, name, params, args)                                                    \
    ret cg_##name params {                                                                     \
        if (!cg_table.name) cg_library_not_loaded(&cg_loaded, #name);                          \
        return cg_table.name args;                                                             \
    }
#define CG_WRAPPER_VOID(name, params, args)                                                    \
    void cg_##name params {                                                                    \
        if (!cg_table.name) cg_library_not_loaded(&cg_loaded, #name);                          \
        cg_table.name args;                                                                    \
    }
#define CG_SHIM(load_function, soname, package, LIST)                                          \
    CG_LIBRARY_TABLE(soname, package, LIST)                                                    \
    int load_function(char *error, size_t error_size) {                                        \
        return cg_library_load(&cg_loaded, error, error_size);                                 \
    }                                                                                          \
    LIST(CG_WRAPPER, CG_WRAPPER_VOID)

#endif
