"""Largest import circle (strongly connected component) among the files under a
source dir, from `crate::a::b` paths (in `use` lines and inline), grouped braces
included. Usage: python3 tools/import_circles.py src tui [-v]   (from the repository root)"""
import os, re, sys
root, prefix = sys.argv[1], sys.argv[2]
files = {}
for d, _, fs in os.walk(os.path.join(root, prefix)):
    for f in fs:
        if f.endswith('.rs'):
            p = os.path.join(d, f)
            rel = os.path.relpath(p, root)[:-3]
            mod = rel.replace(os.sep, '::')
            if mod.endswith('::mod'): mod = mod[:-5]
            files[mod] = p
def resolve(path):
    parts = path.split('::')
    for n in range(len(parts), 0, -1):
        m = '::'.join(parts[:n])
        if m in files: return m
    return None
def expand(s):
    # crate::tui::pane::{diagram, finish} -> list
    out = []
    m = re.match(r'(.*?)\{(.*)\}$', s, re.S)
    if not m: return [s]
    head, body = m.group(1), m.group(2)
    depth, cur, items = 0, '', []
    for ch in body:
        if ch == '{': depth += 1
        if ch == '}': depth -= 1
        if ch == ',' and depth == 0: items.append(cur); cur = ''
        else: cur += ch
    items.append(cur)
    for it in items:
        it = it.strip()
        if it: out += expand(head + it)
    return out
edges = {m: set() for m in files}
for mod, p in files.items():
    src = open(p).read()
    src = re.sub(r'#\[cfg\(test\)\]\s*mod tests\s*\{.*', '', src, flags=re.S)
    paths = []
    for u in re.findall(r'use\s+(crate::[^;]+);', src):
        paths += expand(re.sub(r'\s+', '', u))
    paths += re.findall(r'crate::[A-Za-z_][\w:]*', src)
    for path in paths:
        path = path[len('crate::'):]
        t = resolve(path)
        if t and t != mod: edges[mod].add(t)
# Tarjan
idx, low, on, st, sccs, i = {}, {}, set(), [], [], [0]
sys.setrecursionlimit(10000)
def sc(v):
    idx[v] = low[v] = i[0]; i[0] += 1; st.append(v); on.add(v)
    for w in edges[v]:
        if w not in idx: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        c = []
        while True:
            w = st.pop(); on.discard(w); c.append(w)
            if w == v: break
        sccs.append(c)
for v in files:
    if v not in idx: sc(v)
sccs.sort(key=len, reverse=True)
big = sccs[0]
print(len(files), 'files; largest circle', len(big))
importers_of_app = sorted(m for m in files if 'tui::app' in edges[m])
print('files importing tui::app:', len(importers_of_app))
if '-v' in sys.argv: print(sorted(big)); print(importers_of_app)
