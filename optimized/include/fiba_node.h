/* A FiBA node, defined in C so that the in-order kernel (fiba_inorder.h) shares it with _fiba.pyx. One malloc'd
   block: this header, then the children (2mu + 1 pointers), the times and the values (2mu slots each). */
#ifndef SWAGKIT_FIBA_NODE_H
#define SWAGKIT_FIBA_NODE_H

#include "swag_slot.h"

typedef struct SwagFNode {
    struct SwagFNode* parent;
    struct SwagFNode** children;  /* entries may be NULL only in dead nodes */
    SwagSlot* times;
    SwagSlot* values;
    SwagSlot agg;
    int64_t count;
    int n;                        /* entries (arity - 1); -1: an emptied dead node (nothing to release or push) */
    char leaf;
    char left_spine;
    char right_spine;
    char tobj;                    /* its time slots hold owned references */
    struct SwagFNode* next_free;
} SwagFNode;

#endif /* SWAGKIT_FIBA_NODE_H */
