// avahi-client (and avahi-common behind it), loaded when discovery or
// publishing first runs (see LibraryLoader.h): cg_avahi_* are its functions,
// callable once cg_avahi_load succeeded.
#ifndef CAST_GATEWAY_CAVAHI_SHIM_H
#define CAST_GATEWAY_CAVAHI_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/address.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#include <LibraryLoader.h>

/// Loads libavahi-client.so.3 once; 1 when usable, else 0 with the reason in `error`.
int cg_avahi_load(char *error, size_t error_size);

#define CG_AVAHI_FUNCTIONS(F, V)                                                                                       \
    F(AvahiThreadedPoll *, avahi_threaded_poll_new, (void), ())                                                        \
    V(avahi_threaded_poll_free, (AvahiThreadedPoll *poll), (poll))                                                     \
    F(const AvahiPoll *, avahi_threaded_poll_get, (AvahiThreadedPoll *poll), (poll))                                   \
    F(int, avahi_threaded_poll_start, (AvahiThreadedPoll *poll), (poll))                                               \
    F(int, avahi_threaded_poll_stop, (AvahiThreadedPoll *poll), (poll))                                                \
    V(avahi_threaded_poll_lock, (AvahiThreadedPoll *poll), (poll))                                                     \
    V(avahi_threaded_poll_unlock, (AvahiThreadedPoll *poll), (poll))                                                   \
    F(AvahiClient *, avahi_client_new,                                                                                 \
      (const AvahiPoll *poll, AvahiClientFlags flags, AvahiClientCallback callback, void *userdata, int *error),       \
      (poll, flags, callback, userdata, error))                                                                        \
    V(avahi_client_free, (AvahiClient *client), (client))                                                              \
    F(int, avahi_client_errno, (AvahiClient *client), (client))                                                        \
    F(const char *, avahi_strerror, (int error), (error))                                                              \
    F(AvahiServiceBrowser *, avahi_service_browser_new,                                                                \
      (AvahiClient *client, AvahiIfIndex interface, AvahiProtocol protocol, const char *type, const char *domain,      \
       AvahiLookupFlags flags, AvahiServiceBrowserCallback callback, void *userdata),                                  \
      (client, interface, protocol, type, domain, flags, callback, userdata))                                          \
    F(int, avahi_service_browser_free, (AvahiServiceBrowser *browser), (browser))                                      \
    F(AvahiServiceResolver *, avahi_service_resolver_new,                                                              \
      (AvahiClient *client, AvahiIfIndex interface, AvahiProtocol protocol, const char *name, const char *type,        \
       const char *domain, AvahiProtocol aprotocol, AvahiLookupFlags flags, AvahiServiceResolverCallback callback,     \
       void *userdata),                                                                                                \
      (client, interface, protocol, name, type, domain, aprotocol, flags, callback, userdata))                         \
    F(int, avahi_service_resolver_free, (AvahiServiceResolver *resolver), (resolver))                                  \
    F(AvahiEntryGroup *, avahi_entry_group_new, (AvahiClient *client, AvahiEntryGroupCallback callback, void *userdata), \
      (client, callback, userdata))                                                                                    \
    F(int, avahi_entry_group_free, (AvahiEntryGroup *group), (group))                                                  \
    F(int, avahi_entry_group_commit, (AvahiEntryGroup *group), (group))                                                \
    F(int, avahi_entry_group_reset, (AvahiEntryGroup *group), (group))                                                 \
    F(int, avahi_entry_group_add_service_strlst,                                                                       \
      (AvahiEntryGroup *group, AvahiIfIndex interface, AvahiProtocol protocol, AvahiPublishFlags flags,                \
       const char *name, const char *type, const char *domain, const char *host, uint16_t port, AvahiStringList *txt), \
      (group, interface, protocol, flags, name, type, domain, host, port, txt))                                        \
    F(char *, avahi_address_snprint, (char *text, size_t length, const AvahiAddress *address), (text, length, address)) \
    F(char *, avahi_alternative_service_name, (const char *name), (name))                                              \
    V(avahi_free, (void *pointer), (pointer))                                                                          \
    F(AvahiStringList *, avahi_string_list_add, (AvahiStringList *list, const char *text), (list, text))               \
    V(avahi_string_list_free, (AvahiStringList *list), (list))                                                         \
    F(AvahiStringList *, avahi_string_list_get_next, (AvahiStringList *list), (list))                                  \
    F(size_t, avahi_string_list_get_size, (AvahiStringList *list), (list))                                             \
    F(uint8_t *, avahi_string_list_get_text, (AvahiStringList *list), (list))

CG_AVAHI_FUNCTIONS(CG_DECLARE, CG_DECLARE_VOID)

#endif
