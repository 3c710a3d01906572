// The same two calls as pybind_probe.cc and cython_probe.pyx, through the CPython API: a unary
// and a binary function over a 24-byte handle object (an Expression's size), returning a new one.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cstdint>

namespace {
struct Handle {
  void* graph;
  unsigned index;
  std::uint32_t epoch;
  std::uint64_t id;
};
struct HandleObject {
  PyObject_HEAD Handle h;
};

PyTypeObject handle_type = {PyVarObject_HEAD_INIT(nullptr, 0)};

PyObject* wrap(const Handle& h) {
  HandleObject* o = PyObject_New(HandleObject, &handle_type);
  if (o) o->h = h;
  return reinterpret_cast<PyObject*>(o);
}

bool is_handle(PyObject* o) { return Py_TYPE(o) == &handle_type; }

PyObject* make(PyObject*, PyObject* const*, Py_ssize_t) { return wrap(Handle{nullptr, 0, 0, 1}); }

PyObject* unary(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (n != 1 || !is_handle(args[0])) {
    PyErr_SetString(PyExc_TypeError, "unary(h)");
    return nullptr;
  }
  Handle h = reinterpret_cast<HandleObject*>(args[0])->h;
  ++h.index;
  return wrap(h);
}

PyObject* binary(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (n != 2 || !is_handle(args[0]) || !is_handle(args[1])) {
    PyErr_SetString(PyExc_TypeError, "binary(a, b)");
    return nullptr;
  }
  Handle h = reinterpret_cast<HandleObject*>(args[0])->h;
  h.index += reinterpret_cast<HandleObject*>(args[1])->h.index;
  return wrap(h);
}

PyMethodDef methods[] = {
    {"make", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(make)), METH_FASTCALL, nullptr},
    {"unary", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(unary)), METH_FASTCALL, nullptr},
    {"binary", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(binary)), METH_FASTCALL, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module = {PyModuleDef_HEAD_INIT, "capi_probe", nullptr, -1, methods};
}  // namespace

PyMODINIT_FUNC PyInit_capi_probe() {
  handle_type.tp_name = "capi_probe.Handle";
  handle_type.tp_basicsize = sizeof(HandleObject);
  handle_type.tp_flags = Py_TPFLAGS_DEFAULT;
  if (PyType_Ready(&handle_type) < 0) return nullptr;
  return PyModule_Create(&module);
}
