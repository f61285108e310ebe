#!/usr/bin/env python3
"""Derive Fetchlog manifest fixtures from dlt's own rest_api test configurations.

    extract.py DLT_CHECKOUT OUT_DIR

DLT_CHECKOUT is a checkout of dlt-hub/dlt; the script reads tests/sources/rest_api/**.py
with Python's `ast` (nothing is imported or run) and writes one JSON file per whole config
(a dict literal with a top-level "client" or "resources" key, not nested in another one)
to OUT_DIR/valid/ or OUT_DIR/invalid/, plus OUT_DIR/skipped.txt naming every config that
has no JSON spelling and why. Not run in CI: the fixtures it wrote are committed, and
Tests/FetchlogTests/Manifests/DltConfigs/README.md says from which commit.

What makes a config *invalid*: it is in source_configs.INVALID_CONFIGS, or the test passes
it (lexically, or through a variable) to dlt inside `with pytest.raises(E)` where E is an
error dlt raises while *reading* a config (ValueError, DictValidationException, …), not a
fetch-time one (PipelineStepFailed, ResourceExtractionError: the config itself was valid);
or it is one of REFUSED_AT_RUN (json and data both given: dlt reads the config, then
refuses to send the request).

Conversions, keeping dlt's meaning:
  - paginator and auth instances with a dict spelling in dlt (SinglePagePaginator() ->
    {"type": "single_page"}, HttpBasicAuth("u", "p") -> {"type": "http_basic", …}, …);
  - a name bound once in the same function or module to a convertible value is replaced
    by that value, and a test's parameter by each of its `pytest.mark.parametrize` cases
    (one fixture per case);
  - test_configuration.py's paginator placeholders ("__client_paginator__"…) by the
    `JSONLinkPaginator()` its `_replace_paginators` puts there;
  - a top-level "name" ("dlt_<n>") is added: Fetchlog's manifest names its source there
    (dlt names it in Python).
Anything else (lambdas, other calls, f-strings, a pytest fixture, a `@dlt.resource` in
the resource list) has no JSON spelling: the config is skipped.
Secrets are left as dlt wrote them (literals): the corpus measures what dlt's users paste.
"""
import ast
import json
import os
import sys

READ_ERRORS = {"ValueError", "DictValidationException", "ValueErrorWithKnownValues",
               "TypeErrorWithKnownTypes", "CycleError", "KeyError", "ConfigFieldMissingException",
               "TypeError"}
REFUSED_AT_RUN = {("test_offline.py", "test_data_and_json_mutual_exclusivity"),
                  ("test_rest_api_source.py", "test_rest_api_data_json_mutual_exclusivity")}

# dlt's classes whose instances have a dict spelling: the type, and the order of
# positional arguments.
CLASSES = {
    "SinglePagePaginator": ("single_page", []),
    "HeaderLinkPaginator": ("header_link", ["links_next_key"]),
    "JSONLinkPaginator": ("json_link", ["next_url_path"]),
    "JSONResponsePaginator": ("json_link", ["next_url_path"]),
    "OffsetPaginator": ("offset", ["limit", "offset", "offset_param", "limit_param", "total_path", "maximum_offset"]),
    "PageNumberPaginator": ("page_number", ["base_page", "page", "page_param", "total_path", "maximum_page"]),
    "JSONResponseCursorPaginator": ("cursor", ["cursor_path", "cursor_param"]),
    "HeaderCursorPaginator": ("header_cursor", ["cursor_key", "cursor_param"]),
    "BearerTokenAuth": ("bearer", ["token"]),
    "APIKeyAuth": ("api_key", ["name", "api_key", "location"]),
    "HttpBasicAuth": ("http_basic", ["username", "password"]),
}


# test_configuration.py writes paginators as placeholder strings and swaps them for
# `JSONLinkPaginator()` before dlt reads the config (its `_replace_paginators`); the
# fixtures hold what dlt reads: that paginator's dict spelling.
SENTINELS = {"test_configuration.py": {name: {"type": "json_link"} for name in
                                       ("__client_paginator__", "__defaults_paginator__", "__endpoint_paginator__")}}


def replace_sentinels(value, sentinels):
    if isinstance(value, dict):
        return {k: replace_sentinels(v, sentinels) for k, v in value.items()}
    if isinstance(value, list):
        return [replace_sentinels(v, sentinels) for v in value]
    return sentinels.get(value, value) if isinstance(value, str) else value


class Skip(Exception):
    pass


def bindings(scope):
    """Names assigned exactly once directly in `scope`'s body (a function or module)."""
    seen = {}
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            seen.setdefault(node.targets[0].id, []).append(node.value)
    return {name: values[0] for name, values in seen.items() if len(values) == 1}


def convert(node, names, depth=0):
    if depth > 20:
        raise Skip("a name refers to itself")
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (str, int, float, bool)) or node.value is None:
            return node.value
        raise Skip(f"a constant {node.value!r} has no JSON spelling")
    if isinstance(node, ast.Dict):
        out = {}
        for key, value in zip(node.keys, node.values):
            if key is None:
                spread = convert(value, names, depth)
                if not isinstance(spread, dict):
                    raise Skip("a **spread of something not a dict")
                out.update(spread)
                continue
            k = convert(key, names, depth)
            if not isinstance(k, str):
                raise Skip("a non-string key")
            out[k] = convert(value, names, depth)
        return out
    if isinstance(node, (ast.List, ast.Tuple)):
        return [convert(item, names, depth) for item in node.elts]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -node.operand.value
    if isinstance(node, ast.Name):
        if node.id in names:
            return convert(names[node.id], names, depth + 1)
        raise Skip(f"`{node.id}` is a value not written in the test (a parameter or fixture)")
    if isinstance(node, ast.Call):
        func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "?")
        if func in CLASSES:
            kind, positional = CLASSES[func]
            out = {"type": kind}
            for name, arg in zip(positional, node.args):
                out[name] = convert(arg, names, depth)
            for keyword in node.keywords:
                if keyword.arg is None:
                    raise Skip("a **spread")
                out[keyword.arg] = convert(keyword.value, names, depth)
            return out
        if func == "dict" and not node.args:
            return {k.arg: convert(k.value, names, depth) for k in node.keywords}
        raise Skip(f"`{ast.unparse(node)[:60]}` is a Python object with no JSON spelling")
    if isinstance(node, ast.Lambda):
        raise Skip("a lambda")
    if isinstance(node, ast.JoinedStr):
        raise Skip("an f-string")
    raise Skip(f"`{ast.unparse(node)[:60]}` has no JSON spelling")


def parametrize_cases(function):
    """`@pytest.mark.parametrize` decorators of `function`: a list per decorator of the
    bindings ({argument: value node, …}) of each case, and each case's id."""
    decorators = []
    for decorator in function.decorator_list:
        if not (isinstance(decorator, ast.Call) and ast.unparse(decorator.func).endswith("mark.parametrize")):
            continue
        if not (isinstance(decorator.args[0], ast.Constant) and isinstance(decorator.args[1], ast.List)):
            continue
        argnames = [name.strip() for name in decorator.args[0].value.split(",")]
        cases = []
        for index, case in enumerate(decorator.args[1].elts):
            ident = str(index + 1)
            if isinstance(case, ast.Call) and ast.unparse(case.func).endswith("param"):
                for keyword in case.keywords:
                    if keyword.arg == "id" and isinstance(keyword.value, ast.Constant):
                        ident = keyword.value.value
                values = case.args
            elif len(argnames) > 1 and isinstance(case, ast.Tuple):
                values = case.elts
            else:
                values = [case]
            cases.append((ident, dict(zip(argnames, values))))
        decorators.append(cases)
    return decorators


def free_names(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def is_whole_config(node):
    if not isinstance(node, ast.Dict):
        return False
    keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
    return bool(keys & {"client", "resources"}) and keys <= {"client", "resources", "resource_defaults"}


def raises_read_error(with_node):
    for item in with_node.items:
        call = item.context_expr
        if isinstance(call, ast.Call) and ast.unparse(call.func).endswith("pytest.raises") and call.args:
            name = ast.unparse(call.args[0]).split(".")[-1]
            if name in READ_ERRORS or name == "exception":
                return True
    return False


def main(checkout, out):
    root = os.path.join(checkout, "tests/sources/rest_api")
    if not os.path.isdir(root):
        sys.exit(f"{root} does not exist: give the root of a dlt-hub/dlt checkout")
    found = []  # (file, function, line, node, invalid, names)
    for directory, _, files in sorted(os.walk(root)):
        for file in sorted(files):
            if not file.endswith(".py"):
                continue
            path = os.path.join(directory, file)
            tree = ast.parse(open(path, encoding="utf-8").read())
            module_names = bindings(tree)
            relative = os.path.relpath(path, root)
            parents = {}
            for node in ast.walk(tree):
                for child in ast.iter_child_nodes(node):
                    parents[child] = node

            def enclosing(node, kind):
                while node in parents:
                    node = parents[node]
                    if isinstance(node, kind):
                        return node
                return None

            for node in ast.walk(tree):
                if not is_whole_config(node):
                    continue
                outer, nested = node, False
                while outer in parents:
                    outer = parents[outer]
                    if is_whole_config(outer):
                        nested = True
                if nested:
                    continue
                function = enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                names = dict(module_names)
                if function:
                    names.update(bindings(function))
                invalid = False
                holder = enclosing(node, (ast.Assign, ast.AnnAssign))
                holder_name = None
                if holder is not None:
                    target = holder.target if isinstance(holder, ast.AnnAssign) else holder.targets[0]
                    holder_name = target.id if isinstance(target, ast.Name) else None
                if holder_name == "INVALID_CONFIGS":
                    invalid = True
                with_node = enclosing(node, ast.With)
                if with_node is not None and raises_read_error(with_node):
                    invalid = True
                # A variable holding the config, passed to dlt under pytest.raises.
                if function and isinstance(parents.get(node), (ast.Assign, ast.AnnAssign)):
                    assign = parents[node]
                    target = assign.target if isinstance(assign, ast.AnnAssign) else assign.targets[0]
                    if isinstance(target, ast.Name):
                        for w in ast.walk(function):
                            if isinstance(w, ast.With) and raises_read_error(w) and any(
                                    isinstance(n, ast.Name) and n.id == target.id for n in ast.walk(w)):
                                invalid = True
                # dlt accepts these when it reads them and refuses them when it runs them
                # (json and data both given): a manifest reader should refuse them.
                if function and (os.path.basename(relative), function.name) in REFUSED_AT_RUN:
                    invalid = True
                # A config given as a parametrize case of a test that expects a read error.
                if function and any(node in set(ast.walk(d)) for d in function.decorator_list):
                    if any(isinstance(w, ast.With) and raises_read_error(w) for w in ast.walk(function)):
                        invalid = True
                where = function.name if function else (holder_name or "module")
                # A config in a test's body that uses the test's parameters: one config per
                # case of the parametrize decorators it uses.
                used = free_names(node)
                expansions = [("", {})]
                if function and not any(node in set(ast.walk(d)) for d in function.decorator_list):
                    for cases in parametrize_cases(function):
                        if not any(name in used for name in cases[0][1]):
                            continue
                        expansions = [(f"{prefix}{'.' if prefix else ''}{ident}", {**bound, **binding})
                                      for prefix, bound in expansions for ident, binding in cases]
                for ident, binding in expansions:
                    found.append((relative, where + (f"[{ident}]" if ident else ""), node.lineno, node, invalid, {**names, **binding}))

    os.makedirs(os.path.join(out, "valid"), exist_ok=True)
    os.makedirs(os.path.join(out, "invalid"), exist_ok=True)
    skipped = []
    counts = {"valid": 0, "invalid": 0}
    # File names: FILE.FUNCTION[.CASE-ID][.N when one function holds several configs, N
    # counting every config there, converted or not, in the order written].
    def base(relative, where):
        stem = os.path.splitext(os.path.basename(relative))[0]
        return f"{stem}.{where.replace('[', '.').replace(']', '')}"
    ordered = sorted(found, key=lambda f: (f[0], f[2], f[1]))
    totals, numbers = {}, []
    for relative, where, *_ in ordered:
        name = base(relative, where)
        totals[name] = totals.get(name, 0) + 1
        numbers.append(totals[name])
    converted = []
    for (relative, where, line, node, invalid, names), number in zip(ordered, numbers):
        origin = f"{relative}:{line} ({where})"
        name = base(relative, where)
        filename = name + (f".{number}" if totals[name] > 1 else "") + ".json"
        try:
            config = convert(node, names)
            if os.path.basename(relative) in SENTINELS:
                config = replace_sentinels(config, SENTINELS[os.path.basename(relative)])
            converted.append((relative, where, line, invalid, config, filename))
        except Skip as reason:
            skipped.append(f"{'invalid' if invalid else 'valid'}  {origin}: {reason}")
    for relative, where, line, invalid, config, filename in converted:
        kind = "invalid" if invalid else "valid"
        counts[kind] += 1
        manifest = {"name": f"dlt_{counts['valid'] + counts['invalid']}"}
        manifest.update(config)
        with open(os.path.join(out, kind, filename), "w", encoding="utf-8") as handle:
            json.dump(manifest, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
        print(f"{kind:7}  {filename}  <- {relative}:{line} ({where})")
    with open(os.path.join(out, "skipped.txt"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(skipped) + "\n")
    print(f"{counts['valid']} valid, {counts['invalid']} invalid, {len(skipped)} skipped", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
