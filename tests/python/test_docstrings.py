"""Every public name of the gpgpu package has a docstring that help() can show.

Walks gpgpu and its submodules (gpgpu.js, and any added later): every public function, class,
method and property that gpgpu defines must say what it does in words, beyond the signature
pybind11 writes; every class a user constructs must show how, with an example (an indented code
line). A new binding without a docstring fails here.
"""

import inspect
import re

import gpgpu

# pybind11's generated lines: "name(arg: type, ...) -> type", "Overloaded function.", and the
# numbers of the overloads.
SIGNATURE = re.compile(r"^\s*(\d+\.\s+)?[A-Za-z_][\w.]*\(.*\)(\s*->\s*.+)?\s*$")


def words(doc):
    """The docstring's text without pybind11's signature lines."""
    if not doc:
        return ""
    lines = [ln for ln in doc.splitlines() if not SIGNATURE.match(ln)]
    return "\n".join(ln for ln in lines if ln.strip() != "Overloaded function.").strip()


def overload_texts(doc):
    """The text of each overload of a pybind11 function (one piece when not overloaded)."""
    if doc and "Overloaded function." in doc:
        return [words(part) for part in re.split(r"\n\s*\d+\.\s+", doc)[1:]]
    return [words(doc)]


def is_gpgpu(obj):
    return (getattr(obj, "__module__", None) or "").startswith("gpgpu")


def modules():
    """gpgpu and the submodules reachable from it, each once."""
    found, todo = [], [gpgpu]
    while todo:
        module = todo.pop()
        if module in found:
            continue
        found.append(module)
        for name in dir(module):
            value = getattr(module, name)
            if inspect.ismodule(value) and value.__name__.startswith("gpgpu") and not name.startswith("_"):
                todo.append(value)
    return found


def public_names():
    """(qualified name, object, owner class or None) for every public name gpgpu defines."""
    seen = set()
    for module in modules():
        for name in dir(module):
            value = getattr(module, name)
            if name.startswith("_") or inspect.ismodule(value) or id(value) in seen:
                continue
            if not (inspect.isclass(value) or callable(value)):
                continue  # constants (no_index, __version__) carry their type's docstring
            if not is_gpgpu(value) and not inspect.isbuiltin(value):
                continue
            seen.add(id(value))
            yield f"{module.__name__}.{name}", value, None
            if inspect.isclass(value) and not issubclass(value, BaseException):
                for member, attr in vars(value).items():
                    if member.startswith("_") or isinstance(attr, value):
                        continue
                    yield f"{module.__name__}.{name}.{member}", attr, value


def constructible(cls):
    """True for classes a user makes with cls(...): pybind11 writes their __init__ signature
    (one without a constructor keeps object's docstring); Python classes define __init__."""
    init = vars(cls).get("__init__")
    return init is not None and (init.__doc__ or "").lstrip().startswith("__init__(") or (
        init is not None and inspect.isfunction(init))


def test_the_walk_finds_the_bindings():
    names = {n for n, _, _ in public_names()}
    for expected in ("gpgpu.ComputeKernel", "gpgpu.ComputeKernel.run", "gpgpu.Buffer.to_numpy",
                     "gpgpu.Context", "gpgpu.js.GPGPU.compute", "gpgpu.matmul", "gpgpu.Error"):
        assert expected in names


def test_every_public_name_has_a_docstring():
    missing = []
    for name, obj, _ in public_names():
        doc = obj.__doc__ if not isinstance(obj, (staticmethod, classmethod)) else obj.__func__.__doc__
        if not all(overload_texts(doc)):
            missing.append(name)
    assert not missing, "public names without a docstring (say what each does):\n  " + "\n  ".join(missing)


def test_every_constructible_class_shows_an_example():
    without = []
    for name, obj, owner in public_names():
        if owner is None and inspect.isclass(obj) and not issubclass(obj, BaseException) and constructible(obj):
            doc = obj.__doc__ or ""
            if not re.search(r"^ {4,}\S.*[(=]", doc, re.MULTILINE):
                without.append(name)
    assert not without, "classes whose docstring shows no usage example:\n  " + "\n  ".join(without)


def test_help_shows_the_compute_kernel_example():
    text = inspect.getdoc(gpgpu.ComputeKernel)
    assert "gpgpu.ComputeKernel(ctx" in text and ".run(" in text
