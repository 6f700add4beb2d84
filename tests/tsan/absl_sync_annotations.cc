// ThreadSanitizer annotations for Debian's Abseil synchronization library
// (and libstdc++'s futex waits, at the end).
//
// Debian builds Abseil without ThreadSanitizer, so the happens-before edges
// of absl::Mutex, absl::CondVar and absl::Notification (atomics and futex
// calls inside libabsl_synchronization) are invisible to it, and every
// access guarded by an absl::Mutex would be reported as a race. This file,
// linked into the ThreadSanitizer build's test programs only
// (scripts/tsan.sh), interposes the library's exported entry points: each
// forwards to the library's own function (found with dlsym(RTLD_NEXT)) and
// tells ThreadSanitizer what it did, through the same __tsan_mutex_*
// annotations Abseil makes when it is built with ThreadSanitizer. The
// symbol names are those of Abseil 20220623 in Debian 12 (inline namespace
// debian3); another version fails to link rather than run unannotated.
//
// A program that uses this must export the definitions (-rdynamic), so that
// the library's own calls between these functions reach them too.
#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

// absl::Duration and absl::Time: trivially copyable, passed by value in two
// registers, as this struct is.
struct Duration {
  int64_t hi;
  uint32_t lo;
};

template <typename Fn>
Fn Real(const char* name) {
  void* fn = dlsym(RTLD_NEXT, name);
  if (fn == nullptr) {
    std::fprintf(stderr, "absl_sync_annotations: %s not found\n", name);
    std::abort();
  }
  return reinterpret_cast<Fn>(fn);
}

#define RAW_REAL(type, name) static const auto real = Real<type>(name)

// Set while one of the library's functions runs on behalf of a function
// here. The library calls its own entry points too (AwaitWithTimeout calls
// AwaitWithDeadline; a Notification locks its mutex), some through this file
// and some not, so only the outermost call is announced: nested ones pass
// straight through. A Notification's mutex is thus never announced, and the
// Notification announces its own edge (below).
thread_local int inside = 0;

#define RAW_PASS_THROUGH_WHEN_NESTED(...) \
  if (inside > 0) return real(__VA_ARGS__)

struct Inside {
  Inside() { ++inside; }
  ~Inside() { --inside; }
};

void Acquired(void* mu, unsigned flags) {
  __tsan_mutex_pre_lock(mu, flags);
  __tsan_mutex_post_lock(mu, flags, 0);
}
void Released(void* mu, unsigned flags) {
  __tsan_mutex_pre_unlock(mu, flags);
  __tsan_mutex_post_unlock(mu, flags);
}

// A Notification's flag follows its Mutex (absl/synchronization/
// notification.h: `mutable Mutex mutex_; std::atomic<bool> notified_yet_;`).
// HasBeenNotified() is inline, so its acquire load is instrumented; the
// release store in Notify() is not, and is announced here.
void* NotifiedFlag(const void* notification) {
  return static_cast<char*>(const_cast<void*>(notification)) + sizeof(intptr_t);
}

}  // namespace

extern "C" {

// absl::Mutex

void _ZN4absl7debian35Mutex4LockEv(void* mu) {
  RAW_REAL(void (*)(void*), "_ZN4absl7debian35Mutex4LockEv");
  RAW_PASS_THROUGH_WHEN_NESTED(mu);
  __tsan_mutex_pre_lock(mu, 0);
  {
    Inside scope;
    real(mu);
  }
  __tsan_mutex_post_lock(mu, 0, 0);
}

void _ZN4absl7debian35Mutex6UnlockEv(void* mu) {
  RAW_REAL(void (*)(void*), "_ZN4absl7debian35Mutex6UnlockEv");
  RAW_PASS_THROUGH_WHEN_NESTED(mu);
  __tsan_mutex_pre_unlock(mu, 0);
  {
    Inside scope;
    real(mu);
  }
  __tsan_mutex_post_unlock(mu, 0);
}

bool _ZN4absl7debian35Mutex7TryLockEv(void* mu) {
  RAW_REAL(bool (*)(void*), "_ZN4absl7debian35Mutex7TryLockEv");
  RAW_PASS_THROUGH_WHEN_NESTED(mu);
  __tsan_mutex_pre_lock(mu, __tsan_mutex_try_lock);
  bool locked;
  {
    Inside scope;
    locked = real(mu);
  }
  __tsan_mutex_post_lock(
      mu, __tsan_mutex_try_lock | (locked ? 0 : __tsan_mutex_try_lock_failed), 0);
  return locked;
}

void _ZN4absl7debian35Mutex10ReaderLockEv(void* mu) {
  RAW_REAL(void (*)(void*), "_ZN4absl7debian35Mutex10ReaderLockEv");
  RAW_PASS_THROUGH_WHEN_NESTED(mu);
  __tsan_mutex_pre_lock(mu, __tsan_mutex_read_lock);
  {
    Inside scope;
    real(mu);
  }
  __tsan_mutex_post_lock(mu, __tsan_mutex_read_lock, 0);
}

void _ZN4absl7debian35Mutex12ReaderUnlockEv(void* mu) {
  RAW_REAL(void (*)(void*), "_ZN4absl7debian35Mutex12ReaderUnlockEv");
  RAW_PASS_THROUGH_WHEN_NESTED(mu);
  __tsan_mutex_pre_unlock(mu, __tsan_mutex_read_lock);
  {
    Inside scope;
    real(mu);
  }
  __tsan_mutex_post_unlock(mu, __tsan_mutex_read_lock);
}

bool _ZN4absl7debian35Mutex13ReaderTryLockEv(void* mu) {
  RAW_REAL(bool (*)(void*), "_ZN4absl7debian35Mutex13ReaderTryLockEv");
  RAW_PASS_THROUGH_WHEN_NESTED(mu);
  const unsigned flags = __tsan_mutex_read_lock | __tsan_mutex_try_lock;
  __tsan_mutex_pre_lock(mu, flags);
  bool locked;
  {
    Inside scope;
    locked = real(mu);
  }
  __tsan_mutex_post_lock(mu, flags | (locked ? 0 : __tsan_mutex_try_lock_failed), 0);
  return locked;
}

// LockWhen and its kin block until the condition holds, then hold the lock.
void _ZN4absl7debian35Mutex8LockWhenERKNS0_9ConditionE(void* mu, const void* cond) {
  RAW_REAL(void (*)(void*, const void*), "_ZN4absl7debian35Mutex8LockWhenERKNS0_9ConditionE");
  RAW_PASS_THROUGH_WHEN_NESTED(mu, cond);
  {
    Inside scope;
    real(mu, cond);
  }
  Acquired(mu, 0);
}

void _ZN4absl7debian35Mutex14ReaderLockWhenERKNS0_9ConditionE(void* mu, const void* cond) {
  RAW_REAL(void (*)(void*, const void*),
           "_ZN4absl7debian35Mutex14ReaderLockWhenERKNS0_9ConditionE");
  RAW_PASS_THROUGH_WHEN_NESTED(mu, cond);
  {
    Inside scope;
    real(mu, cond);
  }
  Acquired(mu, __tsan_mutex_read_lock);
}

bool _ZN4absl7debian35Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE(
    void* mu, const void* cond, Duration timeout) {
  RAW_REAL(bool (*)(void*, const void*, Duration),
           "_ZN4absl7debian35Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  RAW_PASS_THROUGH_WHEN_NESTED(mu, cond, timeout);
  bool met;
  {
    Inside scope;
    met = real(mu, cond, timeout);
  }
  Acquired(mu, 0);  // held whether or not the condition became true
  return met;
}

bool _ZN4absl7debian35Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE(
    void* mu, const void* cond, Duration deadline) {
  RAW_REAL(bool (*)(void*, const void*, Duration),
           "_ZN4absl7debian35Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  RAW_PASS_THROUGH_WHEN_NESTED(mu, cond, deadline);
  bool met;
  {
    Inside scope;
    met = real(mu, cond, deadline);
  }
  Acquired(mu, 0);
  return met;
}

bool _ZN4absl7debian35Mutex25ReaderLockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE(
    void* mu, const void* cond, Duration timeout) {
  RAW_REAL(bool (*)(void*, const void*, Duration),
           "_ZN4absl7debian35Mutex25ReaderLockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  RAW_PASS_THROUGH_WHEN_NESTED(mu, cond, timeout);
  bool met;
  {
    Inside scope;
    met = real(mu, cond, timeout);
  }
  Acquired(mu, __tsan_mutex_read_lock);
  return met;
}

bool _ZN4absl7debian35Mutex26ReaderLockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE(
    void* mu, const void* cond, Duration deadline) {
  RAW_REAL(bool (*)(void*, const void*, Duration),
           "_ZN4absl7debian35Mutex26ReaderLockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  RAW_PASS_THROUGH_WHEN_NESTED(mu, cond, deadline);
  bool met;
  {
    Inside scope;
    met = real(mu, cond, deadline);
  }
  Acquired(mu, __tsan_mutex_read_lock);
  return met;
}

// Await and its kin are called holding the lock, which they let go while
// they wait and hold again when they return.
void _ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE(void* mu, const void* cond) {
  RAW_REAL(void (*)(void*, const void*), "_ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE");
  RAW_PASS_THROUGH_WHEN_NESTED(mu, cond);
  Released(mu, 0);
  {
    Inside scope;
    real(mu, cond);
  }
  Acquired(mu, 0);
}

bool _ZN4absl7debian35Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE(
    void* mu, const void* cond, Duration timeout) {
  RAW_REAL(bool (*)(void*, const void*, Duration),
           "_ZN4absl7debian35Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  RAW_PASS_THROUGH_WHEN_NESTED(mu, cond, timeout);
  Released(mu, 0);
  bool met;
  {
    Inside scope;
    met = real(mu, cond, timeout);
  }
  Acquired(mu, 0);
  return met;
}

bool _ZN4absl7debian35Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE(
    void* mu, const void* cond, Duration deadline) {
  RAW_REAL(bool (*)(void*, const void*, Duration),
           "_ZN4absl7debian35Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  RAW_PASS_THROUGH_WHEN_NESTED(mu, cond, deadline);
  Released(mu, 0);
  bool met;
  {
    Inside scope;
    met = real(mu, cond, deadline);
  }
  Acquired(mu, 0);
  return met;
}

// The memory of a destroyed mutex may hold another one later.
void _ZN4absl7debian35MutexD1Ev(void* mu) {
  RAW_REAL(void (*)(void*), "_ZN4absl7debian35MutexD1Ev");
  __tsan_mutex_destroy(mu, 0);
  real(mu);
}

void _ZN4absl7debian35MutexD2Ev(void* mu) {
  RAW_REAL(void (*)(void*), "_ZN4absl7debian35MutexD2Ev");
  __tsan_mutex_destroy(mu, 0);
  real(mu);
}

// absl::CondVar: Wait lets go of `mu` while it waits and holds it again.

void _ZN4absl7debian37CondVar4WaitEPNS0_5MutexE(void* cv, void* mu) {
  RAW_REAL(void (*)(void*, void*), "_ZN4absl7debian37CondVar4WaitEPNS0_5MutexE");
  Released(mu, 0);
  {
    Inside scope;
    real(cv, mu);
  }
  Acquired(mu, 0);
}

bool _ZN4absl7debian37CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE(void* cv, void* mu,
                                                                           Duration timeout) {
  RAW_REAL(bool (*)(void*, void*, Duration),
           "_ZN4absl7debian37CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE");
  Released(mu, 0);
  bool timed_out;
  {
    Inside scope;
    timed_out = real(cv, mu, timeout);
  }
  Acquired(mu, 0);
  return timed_out;
}

bool _ZN4absl7debian37CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE(void* cv, void* mu,
                                                                        Duration deadline) {
  RAW_REAL(bool (*)(void*, void*, Duration),
           "_ZN4absl7debian37CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE");
  Released(mu, 0);
  bool timed_out;
  {
    Inside scope;
    timed_out = real(cv, mu, deadline);
  }
  Acquired(mu, 0);
  return timed_out;
}

// absl::Notification: Notify releases, a wait that saw it acquires.

void _ZN4absl7debian312Notification6NotifyEv(void* n) {
  RAW_REAL(void (*)(void*), "_ZN4absl7debian312Notification6NotifyEv");
  __tsan_release(n);
  __tsan_release(NotifiedFlag(n));
  Inside scope;
  real(n);
}

void _ZNK4absl7debian312Notification19WaitForNotificationEv(const void* n) {
  RAW_REAL(void (*)(const void*), "_ZNK4absl7debian312Notification19WaitForNotificationEv");
  {
    Inside scope;
    real(n);
  }
  __tsan_acquire(const_cast<void*>(n));
}

bool _ZNK4absl7debian312Notification30WaitForNotificationWithTimeoutENS0_8DurationE(
    const void* n, Duration timeout) {
  RAW_REAL(bool (*)(const void*, Duration),
           "_ZNK4absl7debian312Notification30WaitForNotificationWithTimeoutENS0_8DurationE");
  bool notified;
  {
    Inside scope;
    notified = real(n, timeout);
  }
  if (notified) __tsan_acquire(const_cast<void*>(n));
  return notified;
}

bool _ZNK4absl7debian312Notification31WaitForNotificationWithDeadlineENS0_4TimeE(
    const void* n, Duration deadline) {
  RAW_REAL(bool (*)(const void*, Duration),
           "_ZNK4absl7debian312Notification31WaitForNotificationWithDeadlineENS0_4TimeE");
  bool notified;
  {
    Inside scope;
    notified = real(n, deadline);
  }
  if (notified) __tsan_acquire(const_cast<void*>(n));
  return notified;
}

// std::future (libstdc++ of GCC 12): a waiter that has to block waits in
// libstdc++.so (not instrumented), so the acquire of the value it then
// reads is invisible; the notifying side is announced as a release at the
// futex word and the waiter's return as an acquire there.

void _ZNSt28__atomic_futex_unsigned_base19_M_futex_notify_allEPj(unsigned* addr) {
  RAW_REAL(void (*)(unsigned*), "_ZNSt28__atomic_futex_unsigned_base19_M_futex_notify_allEPj");
  __tsan_release(addr);
  real(addr);
}

bool _ZNSt28__atomic_futex_unsigned_base19_M_futex_wait_untilEPjjbNSt6chrono8durationIlSt5ratioILl1ELl1EEEENS2_IlS3_ILl1ELl1000000000EEEE(
    unsigned* addr, unsigned val, bool has_timeout, int64_t s, int64_t ns) {
  RAW_REAL(bool (*)(unsigned*, unsigned, bool, int64_t, int64_t),
           "_ZNSt28__atomic_futex_unsigned_base19_M_futex_wait_untilEPjjbNSt6chrono8durationIlSt5r"
           "atioILl1ELl1EEEENS2_IlS3_ILl1ELl1000000000EEEE");
  const bool woken = real(addr, val, has_timeout, s, ns);
  __tsan_acquire(addr);
  return woken;
}

bool _ZNSt28__atomic_futex_unsigned_base26_M_futex_wait_until_steadyEPjjbNSt6chrono8durationIlSt5ratioILl1ELl1EEEENS2_IlS3_ILl1ELl1000000000EEEE(
    unsigned* addr, unsigned val, bool has_timeout, int64_t s, int64_t ns) {
  RAW_REAL(bool (*)(unsigned*, unsigned, bool, int64_t, int64_t),
           "_ZNSt28__atomic_futex_unsigned_base26_M_futex_wait_until_steadyEPjjbNSt6chrono8durati"
           "onIlSt5ratioILl1ELl1EEEENS2_IlS3_ILl1ELl1000000000EEEE");
  const bool woken = real(addr, val, has_timeout, s, ns);
  __tsan_acquire(addr);
  return woken;
}

}  // extern "C"
