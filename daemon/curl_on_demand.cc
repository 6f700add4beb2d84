// libcurl, loaded by rawd the first time it calls it.
//
// rawd needs libcurl only to reach providers and the web, and a daemon
// spends most of its life waiting for a client; libcurl with what it loads
// at start (OpenSSL, GnuTLS, Kerberos, LDAP, libssh2, nettle, ...) was about
// 4 MB of rawd's resident memory at idle (docs/performance.md, "rawd at
// idle"). This file defines the libcurl functions Raw calls. rawd's link
// resolves Raw's calls to these definitions, so the linker (--as-needed)
// records no dependency on libcurl; each definition forwards to the real
// function, looked up in libcurl.so.4, which the first call opens: the
// first time a client creates, opens or prompts on a session, the session
// manager has libcurl loaded on a worker (SessionManager::PrepareHttp).
//
// Only rawd links this file; the clients, tests and benchmarks call libcurl
// directly. Raw uses no libcurl function that this file does not define:
// one it used without a definition here would make the link record libcurl
// again, which `E2eTest.LibcurlIsLoadedOnlyWhenTheFirstRequestIsSent` catches.
//
// When libcurl cannot be loaded, each function fails as libcurl does when it
// is out of resources (a null handle, CURLE_FAILED_INIT, ...) and the
// strerror functions say why, so that a request fails with a clear error
// and the daemon goes on serving.
//
// Thread-safety: the library is opened once, under the C++ runtime's guard
// of a function-local static; the functions are then as thread-safe as
// libcurl's own.
#include <curl/curl.h>
#include <dlfcn.h>

#include <cstdarg>
#include <string>

namespace {

// The soname of libcurl's ABI 4 (every libcurl since 7.16), against which
// Raw is built.
constexpr char kLibcurl[] = "libcurl.so.4";

struct Libcurl {
  std::string error;  // why libcurl could not be loaded; empty when it was
  decltype(&curl_global_init) global_init = nullptr;
  decltype(&curl_easy_init) easy_init = nullptr;
  decltype(&curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&curl_easy_setopt) easy_setopt = nullptr;
  decltype(&curl_easy_getinfo) easy_getinfo = nullptr;
  decltype(&curl_easy_strerror) easy_strerror = nullptr;
  decltype(&curl_share_init) share_init = nullptr;
  decltype(&curl_share_setopt) share_setopt = nullptr;
  decltype(&curl_share_cleanup) share_cleanup = nullptr;
  decltype(&curl_slist_append) slist_append = nullptr;
  decltype(&curl_slist_free_all) slist_free_all = nullptr;
  decltype(&curl_free) free = nullptr;
  decltype(&curl_multi_init) multi_init = nullptr;
  decltype(&curl_multi_add_handle) multi_add_handle = nullptr;
  decltype(&curl_multi_remove_handle) multi_remove_handle = nullptr;
  decltype(&curl_multi_perform) multi_perform = nullptr;
  decltype(&curl_multi_poll) multi_poll = nullptr;
  decltype(&curl_multi_info_read) multi_info_read = nullptr;
  decltype(&curl_multi_cleanup) multi_cleanup = nullptr;
  decltype(&curl_multi_setopt) multi_setopt = nullptr;
  decltype(&curl_multi_strerror) multi_strerror = nullptr;
  decltype(&curl_url) url = nullptr;
  decltype(&curl_url_cleanup) url_cleanup = nullptr;
  decltype(&curl_url_get) url_get = nullptr;
  decltype(&curl_url_set) url_set = nullptr;
  decltype(&curl_url_strerror) url_strerror = nullptr;

  bool ok() const { return error.empty(); }
};

template <typename Function>
void Find(void* library, const char* name, Function& function, std::string& error) {
  function = reinterpret_cast<Function>(dlsym(library, name));
  if (function == nullptr && error.empty()) {
    error = std::string(kLibcurl) + " has no function " + name;
  }
}

Libcurl Load() {
  Libcurl lib;
  // Local: libcurl's symbols resolve nothing of the rest of the process.
  void* library = dlopen(kLibcurl, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    lib.error = std::string("cannot load ") + kLibcurl + ": " + (why != nullptr ? why : "?");
    return lib;
  }
  std::string& e = lib.error;
  Find(library, "curl_global_init", lib.global_init, e);
  Find(library, "curl_easy_init", lib.easy_init, e);
  Find(library, "curl_easy_cleanup", lib.easy_cleanup, e);
  Find(library, "curl_easy_setopt", lib.easy_setopt, e);
  Find(library, "curl_easy_getinfo", lib.easy_getinfo, e);
  Find(library, "curl_easy_strerror", lib.easy_strerror, e);
  Find(library, "curl_share_init", lib.share_init, e);
  Find(library, "curl_share_setopt", lib.share_setopt, e);
  Find(library, "curl_share_cleanup", lib.share_cleanup, e);
  Find(library, "curl_slist_append", lib.slist_append, e);
  Find(library, "curl_slist_free_all", lib.slist_free_all, e);
  Find(library, "curl_free", lib.free, e);
  Find(library, "curl_multi_init", lib.multi_init, e);
  Find(library, "curl_multi_add_handle", lib.multi_add_handle, e);
  Find(library, "curl_multi_remove_handle", lib.multi_remove_handle, e);
  Find(library, "curl_multi_perform", lib.multi_perform, e);
  Find(library, "curl_multi_poll", lib.multi_poll, e);
  Find(library, "curl_multi_info_read", lib.multi_info_read, e);
  Find(library, "curl_multi_cleanup", lib.multi_cleanup, e);
  Find(library, "curl_multi_setopt", lib.multi_setopt, e);
  Find(library, "curl_multi_strerror", lib.multi_strerror, e);
  Find(library, "curl_url", lib.url, e);
  Find(library, "curl_url_cleanup", lib.url_cleanup, e);
  Find(library, "curl_url_get", lib.url_get, e);
  Find(library, "curl_url_set", lib.url_set, e);
  Find(library, "curl_url_strerror", lib.url_strerror, e);
  // A library missing a function is not used at all, and stays loaded:
  // unloading a library that may have started threads is not safe.
  return lib;
}

const Libcurl& Curl() {
  static const Libcurl* const lib = new Libcurl(Load());  // never freed: used until exit
  return *lib;
}

// Passes the option's argument, read from `args` as the type libcurl reads
// it, to `set`: curl.h numbers the easy and the multi options of each
// argument type from the same bases.
template <typename Code, typename Handle, typename Option, typename Set>
Code ForwardOption(Set set, Handle* handle, Option option, va_list args) {
  const int kind = static_cast<int>(option);
  if (kind < CURLOPTTYPE_OBJECTPOINT) return set(handle, option, va_arg(args, long));
  if (kind < CURLOPTTYPE_FUNCTIONPOINT) return set(handle, option, va_arg(args, void*));
  if (kind < CURLOPTTYPE_OFF_T) {
    using AnyFunction = void (*)();
    return set(handle, option, va_arg(args, AnyFunction));
  }
  if (kind < CURLOPTTYPE_BLOB) return set(handle, option, va_arg(args, curl_off_t));
  return set(handle, option, va_arg(args, void*));  // a struct curl_blob*
}

}  // namespace

extern "C" {

CURLcode curl_global_init(long flags) {
  return Curl().ok() ? Curl().global_init(flags) : CURLE_FAILED_INIT;
}

CURL* curl_easy_init(void) { return Curl().ok() ? Curl().easy_init() : nullptr; }

void curl_easy_cleanup(CURL* easy) {
  if (easy != nullptr) Curl().easy_cleanup(easy);
}

CURLcode curl_easy_setopt(CURL* easy, CURLoption option, ...) {
  if (!Curl().ok()) return CURLE_FAILED_INIT;
  va_list args;
  va_start(args, option);
  CURLcode code = ForwardOption<CURLcode>(Curl().easy_setopt, easy, option, args);
  va_end(args);
  return code;
}

// Every CURLINFO takes a pointer to where the value goes.
CURLcode curl_easy_getinfo(CURL* easy, CURLINFO info, ...) {
  if (!Curl().ok()) return CURLE_FAILED_INIT;
  va_list args;
  va_start(args, info);
  void* out = va_arg(args, void*);
  va_end(args);
  return Curl().easy_getinfo(easy, info, out);
}

const char* curl_easy_strerror(CURLcode code) {
  return Curl().ok() ? Curl().easy_strerror(code) : Curl().error.c_str();
}

CURLSH* curl_share_init(void) { return Curl().ok() ? Curl().share_init() : nullptr; }

// CURLSHOPT_SHARE and _UNSHARE take a curl_lock_data (an int), _LOCKFUNC and
// _UNLOCKFUNC a function, _USERDATA a pointer.
CURLSHcode curl_share_setopt(CURLSH* share, CURLSHoption option, ...) {
  if (!Curl().ok()) return CURLSHE_NOT_BUILT_IN;
  va_list args;
  va_start(args, option);
  CURLSHcode code;
  switch (option) {
    case CURLSHOPT_SHARE:
    case CURLSHOPT_UNSHARE:
      code = Curl().share_setopt(share, option, va_arg(args, int));
      break;
    case CURLSHOPT_LOCKFUNC:
    case CURLSHOPT_UNLOCKFUNC: {
      using AnyFunction = void (*)();
      code = Curl().share_setopt(share, option, va_arg(args, AnyFunction));
      break;
    }
    default:
      code = Curl().share_setopt(share, option, va_arg(args, void*));
      break;
  }
  va_end(args);
  return code;
}

CURLSHcode curl_share_cleanup(CURLSH* share) {
  return Curl().ok() ? Curl().share_cleanup(share) : CURLSHE_INVALID;
}

curl_slist* curl_slist_append(curl_slist* list, const char* data) {
  return Curl().ok() ? Curl().slist_append(list, data) : nullptr;
}

void curl_slist_free_all(curl_slist* list) {
  if (list != nullptr) Curl().slist_free_all(list);
}

void curl_free(void* p) {
  if (p != nullptr) Curl().free(p);
}

CURLM* curl_multi_init(void) { return Curl().ok() ? Curl().multi_init() : nullptr; }

CURLMcode curl_multi_add_handle(CURLM* multi, CURL* easy) {
  return Curl().ok() ? Curl().multi_add_handle(multi, easy) : CURLM_BAD_HANDLE;
}

CURLMcode curl_multi_remove_handle(CURLM* multi, CURL* easy) {
  return Curl().ok() ? Curl().multi_remove_handle(multi, easy) : CURLM_BAD_HANDLE;
}

CURLMcode curl_multi_perform(CURLM* multi, int* running) {
  return Curl().ok() ? Curl().multi_perform(multi, running) : CURLM_BAD_HANDLE;
}

CURLMcode curl_multi_poll(CURLM* multi, curl_waitfd extra_fds[], unsigned int extra_nfds,
                          int timeout_ms, int* ret) {
  return Curl().ok() ? Curl().multi_poll(multi, extra_fds, extra_nfds, timeout_ms, ret)
                     : CURLM_BAD_HANDLE;
}

CURLMsg* curl_multi_info_read(CURLM* multi, int* queued) {
  return Curl().ok() ? Curl().multi_info_read(multi, queued) : nullptr;
}

CURLMcode curl_multi_setopt(CURLM* multi, CURLMoption option, ...) {
  if (!Curl().ok()) return CURLM_BAD_HANDLE;
  va_list args;
  va_start(args, option);
  CURLMcode code = ForwardOption<CURLMcode>(Curl().multi_setopt, multi, option, args);
  va_end(args);
  return code;
}

CURLMcode curl_multi_cleanup(CURLM* multi) {
  return Curl().ok() ? Curl().multi_cleanup(multi) : CURLM_BAD_HANDLE;
}

const char* curl_multi_strerror(CURLMcode code) {
  return Curl().ok() ? Curl().multi_strerror(code) : Curl().error.c_str();
}

CURLU* curl_url(void) { return Curl().ok() ? Curl().url() : nullptr; }

void curl_url_cleanup(CURLU* url) {
  if (url != nullptr) Curl().url_cleanup(url);
}

CURLUcode curl_url_get(CURLU* url, CURLUPart part, char** out, unsigned int flags) {
  return Curl().ok() ? Curl().url_get(url, part, out, flags) : CURLUE_OUT_OF_MEMORY;
}

CURLUcode curl_url_set(CURLU* url, CURLUPart part, const char* text, unsigned int flags) {
  return Curl().ok() ? Curl().url_set(url, part, text, flags) : CURLUE_OUT_OF_MEMORY;
}

const char* curl_url_strerror(CURLUcode code) {
  return Curl().ok() ? Curl().url_strerror(code) : Curl().error.c_str();
}

}  // extern "C"
