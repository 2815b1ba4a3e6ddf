"""The import graph of the dice_harness package, from its source: one line
per module ("module -> dependencies"), then "cycle: a -> b -> a" for each
circle found.  Every import counts, those inside functions too: a circle
that only closes at run time is still a circle.  Exit status 1 when there
is one."""

import ast
import os
import sys


def graph(package_dir):
    modules = {f[:-3] for f in os.listdir(package_dir) if f.endswith(".py")}
    edges = {}
    for module in sorted(modules):
        with open(os.path.join(package_dir, module + ".py"), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    deps.add(node.module.split(".")[0])
                for alias in node.names:
                    deps.add(alias.name if node.module is None and alias.name in modules
                             else "__init__" if node.module is None else node.module.split(".")[0])
            elif isinstance(node, ast.ImportFrom) and node.module \
                    and node.module.split(".")[0] == "dice_harness":
                parts = node.module.split(".")
                deps.add(parts[1] if len(parts) > 1 else "__init__")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    if parts[0] == "dice_harness" and len(parts) > 1:
                        deps.add(parts[1])
        edges[module] = sorted(d for d in deps if d != module and d in modules)
    return edges


def cycles(edges):
    found, state, stack = [], {}, []

    def visit(u):
        state[u] = "open"
        stack.append(u)
        for v in edges[u]:
            if state.get(v) == "open":
                found.append(stack[stack.index(v):] + [v])
            elif v not in state:
                visit(v)
        stack.pop()
        state[u] = "done"

    for module in edges:
        if module not in state:
            visit(module)
    return found


def main():
    edges = graph(sys.argv[1])
    for module, deps in edges.items():
        print("%s -> %s" % (module, " ".join(deps)))
    found = cycles(edges)
    for cycle in found:
        print("cycle: " + " -> ".join(cycle))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
