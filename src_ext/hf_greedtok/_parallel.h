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

#include <new>
#include <system_error>
#include <thread>
#include <vector>

typedef int (*hfg_task_fn)(void *ctx, int t);

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
    int failed = 0;
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
    }
    PyGILState_Release(gil);
    return failed ? -1 : 0;
}
