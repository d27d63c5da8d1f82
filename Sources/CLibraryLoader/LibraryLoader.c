// See LibraryLoader.h.
#include "LibraryLoader.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int load_locked(struct cg_library *library) {
    void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        // dlerror() starts with the soname again; the rest is the reason.
        const char *reason = dlerror();
        size_t name_length = strlen(library->soname);
        if (reason && strncmp(reason, library->soname, name_length) == 0 && strncmp(reason + name_length, ": ", 2) == 0)
            reason += name_length + 2;
        snprintf(library->error, sizeof library->error, "cannot load %s (%s): install %s", library->soname,
                 reason ? reason : "unknown error", library->package);
        return 0;
    }
    for (size_t index = 0; index < library->count; index++) {
        void *address = dlsym(handle, library->symbols[index].name);
        if (!address) {
            snprintf(library->error, sizeof library->error, "%s has no %s: install the version of %s this build is for",
                     library->soname, library->symbols[index].name, library->package);
            // The slots stay as they were (NULL): nothing may call through a partial table.
            for (size_t filled = 0; filled < index; filled++) *library->symbols[filled].slot = NULL;
            dlclose(handle);
            return 0;
        }
        *library->symbols[index].slot = address;
    }
    return 1;
}

/* One lock for every library: loads are rare, and a struct without a mutex
 * can be made anywhere (a test makes one in Swift). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int cg_library_load(struct cg_library *library, char *error, size_t error_size) {
    pthread_mutex_lock(&lock);
    if (!library->loaded) library->loaded = load_locked(library);
    int loaded = library->loaded;
    if (!loaded && error && error_size) snprintf(error, error_size, "%s", library->error);
    pthread_mutex_unlock(&lock);
    return loaded;
}

void cg_library_not_loaded(const struct cg_library *library, const char *symbol) {
    fprintf(stderr, "cast-gateway: %s called before %s was loaded\n", symbol, library->soname);
    abort();
}
