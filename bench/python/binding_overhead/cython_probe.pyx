# cython: language_level=3, boundscheck=False, wraparound=False
# The two probe calls through Cython (see capi_probe.cc).
from libc.stdint cimport uint32_t, uint64_t

cdef struct Handle:
    void* graph
    unsigned index
    uint32_t epoch
    uint64_t id

cdef class HandleObject:
    cdef Handle h

cdef inline HandleObject wrap(Handle h):
    cdef HandleObject o = HandleObject.__new__(HandleObject)
    o.h = h
    return o

def make():
    cdef Handle h
    h.graph = NULL
    h.index = 0
    h.epoch = 0
    h.id = 1
    return wrap(h)

def unary(HandleObject a not None):
    cdef Handle h = a.h
    h.index += 1
    return wrap(h)

def binary(HandleObject a not None, HandleObject b not None):
    cdef Handle h = a.h
    h.index += b.h.index
    return wrap(h)
