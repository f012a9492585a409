/* One stored value of the compiled structures -- a C double, an int64 or an owned PyObject* (generic path) --,
   and the branch hints. A C typedef (not a Cython one) so that the C kernels in this folder use it too. */
#ifndef SWAGKIT_SWAG_SLOT_H
#define SWAGKIT_SWAG_SLOT_H

#include <Python.h>
#include <stdint.h>

#define SWAG_F64_EXACT_INT 9007199254740992LL
#if defined(__GNUC__)
#define SWAG_LIKELY(x) __builtin_expect(!!(x), 1)
#define SWAG_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define SWAG_LIKELY(x) (x)
#define SWAG_UNLIKELY(x) (x)
#endif
typedef union { double f; int64_t i; PyObject* o; } SwagSlot;

#endif /* SWAGKIT_SWAG_SLOT_H */
