/* Fork-join over a few std::threads for Cython code that runs without the GIL.
 *
 * hfg_run_tasks(n, fn, ctx) runs fn(ctx, 0) .. fn(ctx, n - 1), task 0 on the calling thread and
 * the others on threads of their own, and returns once all have finished. A task is a Cython
 * function declared `except -1 nogil`: it reports an error by returning -1 with a Python
 * exception set, which is also what Cython does with a C++ exception (std::bad_alloc becomes
 * MemoryError) thrown by a call declared `except +`.
 *
 * Why a Python thread state per task: Cython raises inside nogil code by taking the GIL with
 * PyGILState_Ensure, setting the error and releasing it again. On a thread without a Python
 * thread state that Ensure/Release pair creates and destroys a temporary one, and the error
 * would vanish with it. Each task therefore runs inside its own Ensure (GIL released again
 * while it works), so its error survives until it is fetched here and handed to the caller.
 *
 * Errors: the exception of the lowest failing task is restored on the calling thread and -1 is
 * returned; the others are dropped. If a thread cannot be started, the calling thread runs that
 * task itself, so results never depend on how many threads actually ran.
 *
 * Call it without holding the GIL, from a thread that has a Python thread state (any Python
 * thread inside `with nogil`).
 */
#pragma once

#include <Python.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <vector>
#if defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
#include <immintrin.h>      // _mm_pause (hfg_pause)
#endif
#if defined(_MSC_VER)
#include <intrin.h>         // _InterlockedExchangeAdd64 (hfg_take_next)
#endif

typedef int (*hfg_task_fn)(void *ctx, int t);

/* The next value of a counter the tasks of one hfg_run_tasks call share (each value is taken by
 * exactly one task): how tasks take pieces of work as they finish the last, so a piece that
 * takes longer than its characters promise does not leave the other threads idle. */
static inline int64_t hfg_take_next(int64_t *counter) {
#if defined(_MSC_VER)
    return _InterlockedExchangeAdd64(reinterpret_cast<volatile long long *>(counter), 1);
#else
    return __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
#endif
}

struct hfg_task_error {
    PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
};

static inline void hfg_run_one(hfg_task_fn fn, void *ctx, int t, hfg_task_error *err) {
    PyGILState_STATE gil = PyGILState_Ensure();
    PyThreadState *saved = PyEval_SaveThread();
    int rc = fn(ctx, t);
    PyEval_RestoreThread(saved);
    if (rc < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_SystemError, "hf_greedtok: a parallel task failed without an exception");
        PyErr_Fetch(&err->type, &err->value, &err->traceback);
    }
    PyGILState_Release(gil);
}

static inline int hfg_raise_first(hfg_task_error *errors, int n);

static inline int hfg_run_tasks(int n, hfg_task_fn fn, void *ctx) {
    if (n < 1)
        return 0;
    std::vector<hfg_task_error> errors;
    std::vector<std::thread> threads;
    try {
        errors.resize(n);
        threads.reserve(n - 1);
    } catch (const std::bad_alloc &) {
        PyGILState_STATE gil = PyGILState_Ensure();
        PyErr_NoMemory();
        PyGILState_Release(gil);
        return -1;
    }
    int started = 1;        // tasks 1 .. started - 1 run on their own threads
    for (int t = 1; t < n; ++t) {
        try {
            threads.emplace_back(hfg_run_one, fn, ctx, t, &errors[t]);
        } catch (const std::system_error &) {
            break;          // no more threads: this thread runs the rest below
        }
        started = t + 1;
    }
    hfg_run_one(fn, ctx, 0, &errors[0]);
    for (int t = started; t < n; ++t)
        hfg_run_one(fn, ctx, t, &errors[t]);
    for (std::thread &th : threads)
        th.join();
    return hfg_raise_first(errors.data(), n);
}

/* Restore the exception of the lowest failing task on the calling thread (the others are
 * dropped) and clear them all; returns -1 if a task failed, else 0. */
static inline int hfg_raise_first(hfg_task_error *errors, int n) {
    int failed = 0, any = 0;
    for (int t = 0; t < n; ++t)
        any |= errors[t].type != nullptr;
    if (!any)
        return 0;           // the common case takes no GIL (a step runs thousands of picks)
    PyGILState_STATE gil = PyGILState_Ensure();
    for (int t = 0; t < n; ++t) {
        if (errors[t].type == nullptr)
            continue;
        if (!failed) {
            PyErr_Restore(errors[t].type, errors[t].value, errors[t].traceback);
            failed = 1;
        } else {
            Py_XDECREF(errors[t].type);
            Py_XDECREF(errors[t].value);
            Py_XDECREF(errors[t].traceback);
        }
        errors[t] = hfg_task_error();
    }
    PyGILState_Release(gil);
    return failed ? -1 : 0;
}

/* A team: the threads of hfg_run_tasks kept alive between runs, for callers that run many
 * short parallel phases in a row (a trainer step applies hundreds of picks; creating and
 * joining a thread costs ~40 us, as much as a small pick's work). Worker t (1 .. n - 1) holds
 * a Python thread state for the team's life, so a task's error survives as in hfg_run_one;
 * between runs it spins briefly (the next run usually comes within microseconds), then
 * sleeps on a condition variable.
 *
 * Use: hfg_team_start(team, n), then hfg_team_run(team, fn, ctx) any number of times, then
 * hfg_team_stop(team); all three without holding the GIL, from a thread with a Python thread
 * state. Tasks whose thread could not be started run on the calling thread. */
struct hfg_team {
    int n = 1;                          // tasks per run
    int started = 1;                    // tasks 1 .. started - 1 have a worker
    std::vector<std::thread> workers;
    std::vector<hfg_task_error> errors;
    std::mutex m;
    std::condition_variable wake, done;
    std::atomic<uint64_t> generation{0};
    std::atomic<int> pending{0};
    hfg_task_fn fn = nullptr;
    void *ctx = nullptr;
    bool stopping = false;
};

static inline void hfg_pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
    _mm_pause();            // MSVC's spelling of the same instruction
#else
    std::this_thread::yield();
#endif
}

enum { HFG_TEAM_SPINS = 1 << 11 };      // about 100 us of spinning (pause: ~50 ns on EPYC) before sleeping

static inline void hfg_team_worker(hfg_team *team, int t, uint64_t seen) {
    PyGILState_STATE gil = PyGILState_Ensure();
    PyThreadState *saved = PyEval_SaveThread();
    for (;;) {
        uint64_t g = team->generation.load(std::memory_order_acquire);
        for (int spins = 0; g == seen && spins < HFG_TEAM_SPINS; ++spins) {
            hfg_pause();
            g = team->generation.load(std::memory_order_acquire);
        }
        if (g == seen) {
            std::unique_lock<std::mutex> lock(team->m);
            team->wake.wait(lock, [&] { return team->generation.load(std::memory_order_acquire) != seen; });
            g = team->generation.load(std::memory_order_acquire);
        }
        seen = g;
        if (team->stopping)
            break;
        if (team->fn(team->ctx, t) < 0) {
            PyEval_RestoreThread(saved);
            hfg_task_error *err = &team->errors[t];
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_SystemError, "hf_greedtok: a parallel task failed without an exception");
            PyErr_Fetch(&err->type, &err->value, &err->traceback);
            saved = PyEval_SaveThread();
        }
        if (team->pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            std::lock_guard<std::mutex> lock(team->m);
            team->done.notify_one();
        }
    }
    PyEval_RestoreThread(saved);
    PyGILState_Release(gil);
}

/* Start n - 1 workers (n >= 1). Returns -1 with MemoryError set if the team's buffers cannot
 * be allocated; a thread that cannot be started only leaves its task to the caller. */
static inline int hfg_team_start(hfg_team *team, int n) {
    try {
        team->errors.assign(n, hfg_task_error());
        team->workers.reserve(n > 1 ? n - 1 : 0);
    } catch (const std::bad_alloc &) {
        PyGILState_STATE gil = PyGILState_Ensure();
        PyErr_NoMemory();
        PyGILState_Release(gil);
        return -1;
    }
    // a team may be started again after a stop: its workers wait for the next generation
    team->n = n;
    team->started = 1;
    team->stopping = false;
    uint64_t now = team->generation.load(std::memory_order_acquire);
    for (int t = 1; t < n; ++t) {
        try {
            team->workers.emplace_back(hfg_team_worker, team, t, now);
        } catch (const std::system_error &) {
            break;
        }
        team->started = t + 1;
    }
    return 0;
}

/* fn(ctx, t) for t = 0 .. n - 1 on the team, returning once all have finished; -1 with the
 * lowest failing task's exception set, as hfg_run_tasks. */
static inline int hfg_team_run(hfg_team *team, hfg_task_fn fn, void *ctx) {
    team->fn = fn;
    team->ctx = ctx;
    team->pending.store(team->started - 1, std::memory_order_relaxed);
    {
        std::lock_guard<std::mutex> lock(team->m);
        team->generation.fetch_add(1, std::memory_order_release);
    }
    team->wake.notify_all();
    hfg_run_one(fn, ctx, 0, &team->errors[0]);
    for (int t = team->started; t < team->n; ++t)
        hfg_run_one(fn, ctx, t, &team->errors[t]);
    for (int spins = 0; team->pending.load(std::memory_order_acquire) != 0 && spins < HFG_TEAM_SPINS; ++spins)
        hfg_pause();
    if (team->pending.load(std::memory_order_acquire) != 0) {
        std::unique_lock<std::mutex> lock(team->m);
        team->done.wait(lock, [&] { return team->pending.load(std::memory_order_acquire) == 0; });
    }
    return hfg_raise_first(team->errors.data(), team->n);
}

/* Stop and join the workers (each releases its Python thread state, which takes the GIL: the
 * caller must not hold it). */
static inline void hfg_team_stop(hfg_team *team) {
    {
        std::lock_guard<std::mutex> lock(team->m);
        team->stopping = true;
        team->generation.fetch_add(1, std::memory_order_release);
    }
    team->wake.notify_all();
    for (std::thread &th : team->workers)
        th.join();
    team->workers.clear();
}
