/* Native loops of the automaton path (dslc.source, dslc.syntax.fast_automaton, dslc.ir.lower_automaton,
 * dslc.dipa.check).
 *
 * Each function is a line-for-line port of a pure-Python loop in
 * dslc/dipa/check.py and fills the same arrays in the same order, so the
 * checker's result does not depend on whether this module is built
 * (tests/test_native.py compares the two on random automata).  Arrays are
 * Python `array('i')` (C int) and `bytes` masks, passed by the buffer
 * protocol; nothing here allocates per state or per edge beyond the work
 * stacks.  Every argument is checked at the boundary, before anything is
 * read through it: a negative size, an index out of range or a buffer of
 * the wrong length raises ValueError (an object that is no buffer at all,
 * TypeError), and nothing is read or written out of bounds
 * (tests/test_native.py calls every function with such arguments).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <stdint.h>

typedef struct {
    Py_buffer view;
    int held;
} Buf;

static void release(Buf *b) {
    if (b->held) {
        PyBuffer_Release(&b->view);
        b->held = 0;
    }
}

/* Take a buffer of C ints (itemsize == sizeof(int)); writable if asked. */
static int take_ints(PyObject *obj, Buf *b, int writable, const char *what) {
    b->held = 0;
    if (PyObject_GetBuffer(obj, &b->view, (writable ? PyBUF_WRITABLE : 0) | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    b->held = 1;
    if (b->view.itemsize != (Py_ssize_t)sizeof(int) || b->view.format == NULL || strcmp(b->view.format, "i") != 0) {
        PyErr_Format(PyExc_ValueError, "%s: expected array('i')", what);
        release(b);
        return -1;
    }
    return 0;
}

/* Take a buffer of bytes (a 0/1 mask). */
static int take_bytes(PyObject *obj, Buf *b, const char *what) {
    b->held = 0;
    if (PyObject_GetBuffer(obj, &b->view, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    b->held = 1;
    (void)what;
    return 0;
}

static void release_many(Buf **bufs, size_t count) {
    for (size_t i = 0; i < count; i++)
        release(bufs[i]);
}

/* RELEASE(&a, &b, ...): release every buffer held */
#define RELEASE(...) release_many((Buf *[]){__VA_ARGS__}, sizeof((Buf *[]){__VA_ARGS__}) / sizeof(Buf *))

#define LEN(b) ((b).view.len / (Py_ssize_t)sizeof(int))
#define INTS(b) ((int *)(b).view.buf)

/* Every entry of adj (and of order, when given) is a valid index, and start
 * is a non-decreasing CSR index array ending at len(adj). */
static int check_csr(Buf *start, Buf *adj, Buf *order, Py_ssize_t n, Py_ssize_t m_edges) {
    const int *s = INTS(*start), *a = INTS(*adj);
    Py_ssize_t m = LEN(*adj);
    if (LEN(*start) != n + 1 || s[0] != 0 || s[n] != m) {
        PyErr_SetString(PyExc_ValueError, "start is not a CSR index of adj");
        return -1;
    }
    for (Py_ssize_t v = 0; v < n; v++)
        if (s[v] > s[v + 1]) {
            PyErr_SetString(PyExc_ValueError, "start is not non-decreasing");
            return -1;
        }
    for (Py_ssize_t k = 0; k < m; k++)
        if (a[k] < 0 || a[k] >= n) {
            PyErr_SetString(PyExc_ValueError, "adj holds a state out of range");
            return -1;
        }
    if (order != NULL) {
        const int *o = INTS(*order);
        if (LEN(*order) != m) {
            PyErr_SetString(PyExc_ValueError, "order and adj differ in length");
            return -1;
        }
        for (Py_ssize_t k = 0; k < m; k++)
            if (o[k] < 0 || o[k] >= m_edges) {
                PyErr_SetString(PyExc_ValueError, "order holds a transition out of range");
                return -1;
            }
    }
    return 0;
}

/* The arguments (start, adj, init, comp) of tarjan and postorder, checked:
 * start a CSR index of adj over len(comp) states, init one of them.  On
 * failure every buffer is released and -1 returned with an exception set. */
static int graph_args(PyObject *args, Buf *start, Buf *adj, int *init, Buf *comp) {
    PyObject *ostart, *oadj, *ocomp;
    *start = (Buf){0};
    *adj = (Buf){0};
    *comp = (Buf){0};
    if (!PyArg_ParseTuple(args, "OOiO", &ostart, &oadj, init, &ocomp))
        return -1;
    if (take_ints(ostart, start, 0, "start") < 0 || take_ints(oadj, adj, 0, "adj") < 0 ||
        take_ints(ocomp, comp, 1, "comp") < 0)
        goto fail;
    if (check_csr(start, adj, NULL, LEN(*comp), 0) < 0)
        goto fail;
    if (*init < 0 || *init >= LEN(*comp)) {
        PyErr_SetString(PyExc_ValueError, "init out of range");
        goto fail;
    }
    return 0;
fail:
    release(start);
    release(adj);
    release(comp);
    return -1;
}

/* tarjan(start, adj, init, comp) -> (ncomp, visited)
 * Strongly connected components of the states reachable from init, numbered
 * in the order the iterative Tarjan search of check.py completes them. */
static PyObject *tarjan(PyObject *self, PyObject *args) {
    int init;
    Buf start, adj, comp;
    if (graph_args(args, &start, &adj, &init, &comp) < 0)
        return NULL;
    Py_ssize_t n = LEN(comp);
    PyObject *result = NULL;
    int *index = NULL, *low = NULL, *ptr = NULL, *stack = NULL, *work = NULL;
    unsigned char *on_stack = NULL;
    const int *st = INTS(start), *a = INTS(adj);
    int *cp = INTS(comp);
    index = malloc(sizeof(int) * (size_t)n);
    low = malloc(sizeof(int) * (size_t)n);
    ptr = malloc(sizeof(int) * (size_t)n);
    stack = malloc(sizeof(int) * (size_t)n);
    work = malloc(sizeof(int) * (size_t)n);
    on_stack = calloc((size_t)n, 1);
    if (!index || !low || !ptr || !stack || !work || !on_stack) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t v = 0; v < n; v++) {
        index[v] = -1;
        low[v] = 0;
        ptr[v] = st[v];
    }
    Py_ssize_t sp = 0, wp = 0;
    int ncomp = 0, counter = 1;
    stack[sp++] = init;
    work[wp++] = init;
    index[init] = low[init] = 0;
    on_stack[init] = 1;
    while (wp > 0) {
        int v = work[wp - 1];
        int k = ptr[v];
        int end = st[v + 1];
        int lv = low[v];
        int w = -1, found = 0;
        while (k < end) {
            w = a[k];
            k++;
            int iw = index[w];
            if (iw < 0) {
                found = 1;
                break;
            }
            if (iw < lv && on_stack[w])
                lv = iw;
        }
        if (!found) {
            wp--;
            if (wp > 0) {
                int u = work[wp - 1];
                if (lv < low[u])
                    low[u] = lv;
            }
            if (lv == index[v]) {
                for (;;) {
                    int x = stack[--sp];
                    on_stack[x] = 0;
                    cp[x] = ncomp;
                    if (x == v)
                        break;
                }
                ncomp++;
            } else {
                low[v] = lv;
            }
            continue;
        }
        ptr[v] = k;
        low[v] = lv;
        index[w] = low[w] = counter;
        counter++;
        stack[sp++] = w;
        on_stack[w] = 1;
        work[wp++] = w;
    }
    result = Py_BuildValue("(ii)", ncomp, counter);
done:
    free(index);
    free(low);
    free(ptr);
    free(stack);
    free(work);
    free(on_stack);
    RELEASE(&start, &adj, &comp);
    return result;
}

/* postorder(start, adj, init, comp) -> ncomp
 * For graphs whose edges all go forward or stay: each state is its own
 * component, numbered in depth-first postorder from init (as check.py). */
static PyObject *postorder(PyObject *self, PyObject *args) {
    int init;
    Buf start, adj, comp;
    if (graph_args(args, &start, &adj, &init, &comp) < 0)
        return NULL;
    Py_ssize_t n = LEN(comp);
    PyObject *result = NULL;
    int *ptr = NULL, *work = NULL;
    unsigned char *seen = NULL;
    const int *st = INTS(start), *a = INTS(adj);
    int *cp = INTS(comp);
    ptr = malloc(sizeof(int) * (size_t)n);
    work = malloc(sizeof(int) * (size_t)n);
    seen = calloc((size_t)n, 1);
    if (!ptr || !work || !seen) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(ptr, st, sizeof(int) * (size_t)n);
    Py_ssize_t wp = 0;
    int ncomp = 0;
    work[wp++] = init;
    seen[init] = 1;
    while (wp > 0) {
        int v = work[wp - 1];
        int k = ptr[v], end = st[v + 1], w = -1, found = 0;
        while (k < end) {
            w = a[k];
            k++;
            if (!seen[w]) {
                found = 1;
                break;
            }
        }
        if (!found) {
            wp--;
            cp[v] = ncomp++;
            continue;
        }
        ptr[v] = k;
        seen[w] = 1;
        work[wp++] = w;
    }
    result = PyLong_FromLong(ncomp);
done:
    free(ptr);
    free(work);
    free(seen);
    RELEASE(&start, &adj, &comp);
    return result;
}

/* bfs(start, adj, order, ok, comp, c, parent, tag, queue, qlen, m) -> qlen
 * Breadth-first search continued from queue[0:qlen] (already marked in
 * parent/tag): a state w behind the k-th CSR edge is entered when parent[w]
 * is -2, ok[k] (if ok is not None) and comp[w] == c (if comp is not None);
 * it gets parent[w] = order[k] (k if order is None) and the tag of the state
 * it is reached from (if tag is not None).  queue has room for every state. */
static PyObject *bfs(PyObject *self, PyObject *args) {
    PyObject *ostart, *oadj, *oorder, *ook, *ocomp, *oparent, *otag, *oqueue;
    int c;
    Py_ssize_t qlen, m_edges;
    Buf start = {0}, adj = {0}, order = {0}, ok = {0}, comp = {0}, parent = {0}, tag = {0}, queue = {0};
    if (!PyArg_ParseTuple(args, "OOOOOiOOOnn", &ostart, &oadj, &oorder, &ook, &ocomp, &c, &oparent, &otag,
                          &oqueue, &qlen, &m_edges))
        return NULL;
    PyObject *result = NULL;
    if (take_ints(ostart, &start, 0, "start") < 0 || take_ints(oadj, &adj, 0, "adj") < 0 ||
        (oorder != Py_None && take_ints(oorder, &order, 0, "order") < 0) ||
        (ook != Py_None && take_bytes(ook, &ok, "ok") < 0) ||
        (ocomp != Py_None && take_ints(ocomp, &comp, 0, "comp") < 0) ||
        take_ints(oparent, &parent, 1, "parent") < 0 ||
        (otag != Py_None && take_ints(otag, &tag, 1, "tag") < 0) ||
        take_ints(oqueue, &queue, 1, "queue") < 0)
        goto done;
    Py_ssize_t n = LEN(parent), m = LEN(adj);
    if (check_csr(&start, &adj, order.held ? &order : NULL, n, order.held ? m_edges : 0) < 0)
        goto done;
    if ((ok.held && ok.view.len != m) || (comp.held && LEN(comp) != n) || (tag.held && LEN(tag) != n) ||
        LEN(queue) < n || qlen < 0 || qlen > n) {
        PyErr_SetString(PyExc_ValueError, "bfs: arrays of the wrong length");
        goto done;
    }
    const int *st = INTS(start), *a = INTS(adj);
    const int *od = order.held ? INTS(order) : NULL;
    const unsigned char *okm = ok.held ? (const unsigned char *)ok.view.buf : NULL;
    const int *cp = comp.held ? INTS(comp) : NULL;
    int *par = INTS(parent), *tg = tag.held ? INTS(tag) : NULL, *q = INTS(queue);
    for (Py_ssize_t i = 0; i < qlen; i++)
        if (q[i] < 0 || q[i] >= n) {
            PyErr_SetString(PyExc_ValueError, "bfs: a root out of range");
            goto done;
        }
    for (Py_ssize_t i = 0; i < qlen; i++) {
        int v = q[i];
        int tv = tg ? tg[v] : 0;
        for (int k = st[v]; k < st[v + 1]; k++) {
            if (okm && !okm[k])
                continue;
            int w = a[k];
            if (par[w] != -2 || (cp && cp[w] != c))
                continue;
            if (qlen >= n) {   /* a state entered twice: cannot happen with parent marks */
                PyErr_SetString(PyExc_ValueError, "bfs: queue overflow");
                goto done;
            }
            par[w] = od ? od[k] : k;
            if (tg)
                tg[w] = tv;
            q[qlen++] = w;
        }
    }
    result = PyLong_FromSsize_t(qlen);
done:
    RELEASE(&start, &adj, &order, &ok, &comp, &parent, &tag, &queue);
    return result;
}

/* group(n, key, edges, rstart, rorder)
 * Counting sort of `edges` (array('i') of indices into key, or None for
 * 0..len(key)-1) by key[e] in 0..n-1, stable: rstart (n + 1 entries) gets
 * the CSR index, rorder (one entry per edge) the edges in order. */
static PyObject *group(PyObject *self, PyObject *args) {
    Py_ssize_t n;
    PyObject *okey, *oedges, *orstart, *rorder_o;
    Buf key = {0}, edges = {0}, rstart = {0}, rorder = {0};
    if (!PyArg_ParseTuple(args, "nOOOO", &n, &okey, &oedges, &orstart, &rorder_o))
        return NULL;
    PyObject *result = NULL;
    int *fill = NULL;
    if (take_ints(okey, &key, 0, "key") < 0 || (oedges != Py_None && take_ints(oedges, &edges, 0, "edges") < 0) ||
        take_ints(orstart, &rstart, 1, "rstart") < 0 || take_ints(rorder_o, &rorder, 1, "rorder") < 0)
        goto done;
    Py_ssize_t nk = LEN(key), ne = edges.held ? LEN(edges) : nk;
    if (n < 0 || n >= INT_MAX || ne > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "group: a negative or too large size");
        goto done;
    }
    if (LEN(rstart) != n + 1 || LEN(rorder) != ne) {
        PyErr_SetString(PyExc_ValueError, "group: arrays of the wrong length");
        goto done;
    }
    const int *ky = INTS(key), *ed = edges.held ? INTS(edges) : NULL;
    int *rs = INTS(rstart), *ro = INTS(rorder);
    for (Py_ssize_t i = 0; i < ne; i++) {
        Py_ssize_t e = ed ? ed[i] : i;
        if (e < 0 || e >= nk || ky[e] < 0 || ky[e] >= n) {
            PyErr_SetString(PyExc_ValueError, "group: an index out of range");
            goto done;
        }
    }
    memset(rs, 0, sizeof(int) * (size_t)(n + 1));
    for (Py_ssize_t i = 0; i < ne; i++)
        rs[ky[ed ? ed[i] : i] + 1]++;
    for (Py_ssize_t v = 0; v < n; v++)
        rs[v + 1] += rs[v];
    fill = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!fill) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(fill, rs, sizeof(int) * (size_t)n);
    for (Py_ssize_t i = 0; i < ne; i++) {
        int e = ed ? ed[i] : (int)i;
        ro[fill[ky[e]]++] = e;
    }
    Py_INCREF(Py_None);
    result = Py_None;
done:
    free(fill);
    RELEASE(&key, &edges, &rstart, &rorder);
    return result;
}


/* critical(src, dst, comp, rate, nclasses) -> (crit, used)
 * The critical transitions (source reachable, target in another component)
 * in increasing order, and per rate class 1 if a critical transition leaves
 * a state of that class. */
static PyObject *critical(PyObject *self, PyObject *args) {
    PyObject *osrc, *odst, *ocomp, *orate;
    Py_ssize_t nclasses;
    Buf src = {0}, dst = {0}, comp = {0}, rate = {0};
    if (!PyArg_ParseTuple(args, "OOOOn", &osrc, &odst, &ocomp, &orate, &nclasses))
        return NULL;
    PyObject *result = NULL, *crit = NULL, *used = NULL;
    if (take_ints(osrc, &src, 0, "src") < 0 || take_ints(odst, &dst, 0, "dst") < 0 ||
        take_ints(ocomp, &comp, 0, "comp") < 0 || take_ints(orate, &rate, 0, "rate") < 0)
        goto done;
    Py_ssize_t m = LEN(src), n = LEN(comp);
    if (LEN(dst) != m || LEN(rate) != n || nclasses < 0) {
        PyErr_SetString(PyExc_ValueError, "critical: arrays of the wrong length");
        goto done;
    }
    const int *sr = INTS(src), *ds = INTS(dst), *cp = INTS(comp), *rt = INTS(rate);
    for (Py_ssize_t e = 0; e < m; e++)
        if (sr[e] < 0 || sr[e] >= n || ds[e] < 0 || ds[e] >= n) {
            PyErr_SetString(PyExc_ValueError, "critical: a state out of range");
            goto done;
        }
    for (Py_ssize_t q = 0; q < n; q++)
        if (rt[q] < 0 || rt[q] >= nclasses) {
            PyErr_SetString(PyExc_ValueError, "critical: a rate class out of range");
            goto done;
        }
    Py_ssize_t count = 0;
    for (Py_ssize_t e = 0; e < m; e++) {
        int c = cp[sr[e]];
        count += c >= 0 && c != cp[ds[e]];
    }
    crit = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int) * count);
    used = PyByteArray_FromStringAndSize(NULL, nclasses);
    if (!crit || !used)
        goto done;
    int *out = (int *)PyByteArray_AS_STRING(crit);
    char *u = PyByteArray_AS_STRING(used);
    memset(u, 0, (size_t)nclasses);
    Py_ssize_t i = 0;
    for (Py_ssize_t e = 0; e < m; e++) {
        int c = cp[sr[e]];
        if (c >= 0 && c != cp[ds[e]]) {
            out[i++] = (int)e;
            u[rt[sr[e]]] = 1;
        }
    }
    result = Py_BuildValue("(OO)", crit, used);
done:
    Py_XDECREF(crit);
    Py_XDECREF(used);
    RELEASE(&src, &dst, &comp, &rate);
    return result;
}

/* weigh(crit, src, dst, comp, rate, is_input, prime, plain, extra, ncomp, init_comp, costs, dist, best_in) -> bool
 * The cost of each critical transition (plain[2·class + input], plus
 * extra[class] when an input state's transition outputs insample′) into
 * costs, and the longest path over them in the DAG of components: components
 * in decreasing id (topological), each one's transitions in increasing order,
 * as check.py.  dist (array('q'), -1 unreached) and best_in (-1 none) per
 * component.  False, with nothing meaningful written, if a sum could leave
 * 64 bits (the caller then computes in Python integers). */
static PyObject *weigh(PyObject *self, PyObject *args) {
    PyObject *ocrit, *osrc, *odst, *ocomp, *orate, *oinput, *oprime, *oplain, *oextra, *ocosts, *odist, *obest;
    Py_ssize_t ncomp;
    int init_comp;
    Buf crit = {0}, src = {0}, dst = {0}, comp = {0}, rate = {0}, input = {0}, prime = {0}, plain = {0},
        extra = {0}, costs = {0}, dist = {0}, best = {0};
    if (!PyArg_ParseTuple(args, "OOOOOOOOOniOOO", &ocrit, &osrc, &odst, &ocomp, &orate, &oinput, &oprime,
                          &oplain, &oextra, &ncomp, &init_comp, &ocosts, &odist, &obest))
        return NULL;
    PyObject *result = NULL;
    int *start = NULL, *seq = NULL;
    if (take_ints(ocrit, &crit, 0, "crit") < 0 || take_ints(osrc, &src, 0, "src") < 0 ||
        take_ints(odst, &dst, 0, "dst") < 0 || take_ints(ocomp, &comp, 0, "comp") < 0 ||
        take_ints(orate, &rate, 0, "rate") < 0 || take_bytes(oinput, &input, "is_input") < 0 ||
        take_bytes(oprime, &prime, "prime") < 0 || PyObject_GetBuffer(oplain, &plain.view, PyBUF_FORMAT) < 0)
        goto done;
    plain.held = 1;
    if (PyObject_GetBuffer(oextra, &extra.view, PyBUF_FORMAT) < 0)
        goto done;
    extra.held = 1;
    if (PyObject_GetBuffer(ocosts, &costs.view, PyBUF_FORMAT | PyBUF_WRITABLE) < 0)
        goto done;
    costs.held = 1;
    if (PyObject_GetBuffer(odist, &dist.view, PyBUF_FORMAT | PyBUF_WRITABLE) < 0)
        goto done;
    dist.held = 1;
    if (take_ints(obest, &best, 1, "best_in") < 0)
        goto done;
    Buf *q64[] = {&plain, &extra, &costs, &dist};
    for (int j = 0; j < 4; j++)
        if (q64[j]->view.itemsize != 8 || !q64[j]->view.format || strcmp(q64[j]->view.format, "q") != 0) {
            PyErr_SetString(PyExc_ValueError, "weigh: expected array('q')");
            goto done;
        }
    Py_ssize_t nc = LEN(crit), m = LEN(src), n = LEN(comp), nr = extra.view.len / 8;
    if (ncomp < 0 || ncomp >= INT_MAX || nc > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "weigh: a negative or too large size");
        goto done;
    }
    if (LEN(dst) != m || LEN(rate) != n || input.view.len != n || prime.view.len != m ||
        plain.view.len / 8 != 2 * nr || costs.view.len / 8 != nc || dist.view.len / 8 != ncomp ||
        LEN(best) != ncomp || init_comp < 0 || init_comp >= ncomp) {
        PyErr_SetString(PyExc_ValueError, "weigh: arrays of the wrong length");
        goto done;
    }
    const int *cr = INTS(crit), *sr = INTS(src), *ds = INTS(dst), *cp = INTS(comp), *rt = INTS(rate);
    const unsigned char *inp = input.view.buf, *pr = prime.view.buf;
    const long long *pl = plain.view.buf, *ex = extra.view.buf;
    long long *cs = costs.view.buf, *dt = dist.view.buf;
    int *bi = INTS(best);
    long long total = 0;
    for (Py_ssize_t i = 0; i < nc; i++) {
        int e = cr[i];
        if (e < 0 || e >= m || (i > 0 && cr[i - 1] >= e)) {
            PyErr_SetString(PyExc_ValueError, "weigh: crit is not increasing transitions");
            goto done;
        }
        int q = sr[e], d = ds[e];
        if (q < 0 || q >= n || d < 0 || d >= n) {
            PyErr_SetString(PyExc_ValueError, "weigh: an index out of range");
            goto done;
        }
        int c = cp[q], t = cp[d];
        if (c < 0 || c >= ncomp || t < 0 || t >= ncomp || rt[q] < 0 || rt[q] >= nr) {
            PyErr_SetString(PyExc_ValueError, "weigh: an index out of range");
            goto done;
        }
        long long cost = pl[2 * rt[q] + (inp[q] ? 1 : 0)];
        if (inp[q] && pr[e] && __builtin_add_overflow(cost, ex[rt[q]], &cost))
            goto overflow;
        if (cost < 0 || __builtin_add_overflow(total, cost, &total))
            goto overflow;
        cs[i] = cost;
    }
    /* stable counting sort of the critical transitions by decreasing source component */
    start = calloc((size_t)ncomp + 1, sizeof(int));
    seq = malloc(sizeof(int) * (size_t)(nc > 0 ? nc : 1));
    if (!start || !seq) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < nc; i++)
        start[ncomp - 1 - cp[sr[cr[i]]] + 1]++;
    for (Py_ssize_t k = 0; k < ncomp; k++)
        start[k + 1] += start[k];
    for (Py_ssize_t i = 0; i < nc; i++)
        seq[start[ncomp - 1 - cp[sr[cr[i]]]]++] = (int)i;
    for (Py_ssize_t k = 0; k < ncomp; k++) {
        dt[k] = -1;
        bi[k] = -1;
    }
    dt[init_comp] = 0;
    for (Py_ssize_t j = 0; j < nc; j++) {
        Py_ssize_t i = seq[j];
        int e = cr[i];
        int c = cp[sr[e]], t = cp[ds[e]];
        long long dc = dt[c];
        if (dc < 0)
            continue;
        long long cand = dc + cs[i];          /* no overflow: every sum is at most total */
        if (cand > dt[t]) {
            dt[t] = cand;
            bi[t] = e;
        }
    }
    Py_INCREF(Py_True);
    result = Py_True;
    goto done;
overflow:
    Py_INCREF(Py_False);
    result = Py_False;
done:
    free(start);
    free(seq);
    RELEASE(&crit, &src, &dst, &comp, &rate, &input, &prime, &plain, &extra, &costs, &dist, &best);
    return result;
}


/* take(values, index) -> array('i') bytes: values[index[i]] for every i. */
static PyObject *take(PyObject *self, PyObject *args) {
    PyObject *ovalues, *oindex;
    Buf values = {0}, index = {0};
    if (!PyArg_ParseTuple(args, "OO", &ovalues, &oindex))
        return NULL;
    PyObject *result = NULL;
    if (take_ints(ovalues, &values, 0, "values") < 0 || take_ints(oindex, &index, 0, "index") < 0)
        goto done;
    Py_ssize_t nv = LEN(values), ni = LEN(index);
    const int *v = INTS(values), *ix = INTS(index);
    for (Py_ssize_t i = 0; i < ni; i++)
        if (ix[i] < 0 || ix[i] >= nv) {
            PyErr_SetString(PyExc_ValueError, "take: an index out of range");
            goto done;
        }
    result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int) * ni);
    if (!result)
        goto done;
    int *out = (int *)PyBytes_AS_STRING(result);
    for (Py_ssize_t i = 0; i < ni; i++)
        out[i] = v[ix[i]];
done:
    RELEASE(&values, &index);
    return result;
}

/* expand(counts) -> array('i') bytes: i repeated counts[i] times, for every i
 * (counts: bytes), i.e. the source state of every transition when a state's
 * transitions are consecutive. */
static PyObject *expand(PyObject *self, PyObject *ocounts) {
    Buf counts = {0};
    if (take_bytes(ocounts, &counts, "counts") < 0)
        return NULL;
    const unsigned char *c = (const unsigned char *)counts.view.buf;
    Py_ssize_t n = counts.view.len, total = 0;
    PyObject *result = NULL;
    if (n > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "expand: too many entries");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        total += c[i];
    result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int) * total);
    if (!result)
        goto done;
    int *out = (int *)PyBytes_AS_STRING(result);
    for (Py_ssize_t i = 0; i < n; i++)
        for (unsigned k = 0; k < c[i]; k++)
            *out++ = (int)i;
done:
    RELEASE(&counts);
    return result;
}

/* spread(values, start, ids) -> array('i') bytes: values[start[j]:start[j+1]]
 * for every j in ids, one after the other (start: a CSR index of values). */
static PyObject *spread(PyObject *self, PyObject *args) {
    PyObject *ovalues, *ostart, *oids;
    Buf values = {0}, start = {0}, ids = {0};
    if (!PyArg_ParseTuple(args, "OOO", &ovalues, &ostart, &oids))
        return NULL;
    PyObject *result = NULL;
    if (take_ints(ovalues, &values, 0, "values") < 0 || take_ints(ostart, &start, 0, "start") < 0
        || take_ints(oids, &ids, 0, "ids") < 0)
        goto done;
    Py_ssize_t nv = LEN(values), ns = LEN(start) - 1, ni = LEN(ids), total = 0;
    const int *v = INTS(values), *s = INTS(start), *ix = INTS(ids);
    if (ns < 0 || s[0] != 0 || s[ns] != nv) {
        PyErr_SetString(PyExc_ValueError, "spread: start is not a CSR index of values");
        goto done;
    }
    for (Py_ssize_t j = 0; j < ns; j++)
        if (s[j] > s[j + 1]) {
            PyErr_SetString(PyExc_ValueError, "spread: start is not non-decreasing");
            goto done;
        }
    for (Py_ssize_t i = 0; i < ni; i++) {
        if (ix[i] < 0 || ix[i] >= ns) {
            PyErr_SetString(PyExc_ValueError, "spread: an id out of range");
            goto done;
        }
        total += s[ix[i] + 1] - s[ix[i]];
    }
    result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int) * total);
    if (!result)
        goto done;
    int *out = (int *)PyBytes_AS_STRING(result);
    for (Py_ssize_t i = 0; i < ni; i++)
        for (int k = s[ix[i]]; k < s[ix[i] + 1]; k++)
            *out++ = v[k];
done:
    RELEASE(&values, &start, &ids);
    return result;
}

/* firsts(comp, src, edges, ncomp, nth=1, keep=None) -> {component: edge}
 * For increasing `edges` (each one's source in a component), the nth one
 * (1 or 2) whose source lies in each component; with `keep` (bytes, one per
 * component) only the components marked there. */
static PyObject *firsts(PyObject *self, PyObject *args) {
    PyObject *ocomp, *osrc, *oedges, *okeep = Py_None;
    Buf comp = {0}, src = {0}, edges = {0}, keep = {0};
    Py_ssize_t ncomp;
    int nth = 1;
    if (!PyArg_ParseTuple(args, "OOOn|iO", &ocomp, &osrc, &oedges, &ncomp, &nth, &okeep))
        return NULL;
    PyObject *result = NULL;
    int *pick = NULL, *count = NULL;
    if (take_ints(ocomp, &comp, 0, "comp") < 0 || take_ints(osrc, &src, 0, "src") < 0 ||
        take_ints(oedges, &edges, 0, "edges") < 0 || (okeep != Py_None && take_bytes(okeep, &keep, "keep") < 0))
        goto done;
    Py_ssize_t n = LEN(comp), m = LEN(src), ne = LEN(edges);
    const int *cp = INTS(comp), *sr = INTS(src), *ed = INTS(edges);
    const unsigned char *kp = keep.held ? keep.view.buf : NULL;
    if (nth < 1 || ncomp < 0 || (kp && keep.view.len != ncomp)) {
        PyErr_SetString(PyExc_ValueError, "firsts: bad nth or keep");
        goto done;
    }
    pick = malloc(sizeof(int) * (size_t)(ncomp > 0 ? ncomp : 1));
    count = calloc((size_t)(ncomp > 0 ? ncomp : 1), sizeof(int));
    if (!pick || !count) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t c = 0; c < ncomp; c++)
        pick[c] = -1;
    for (Py_ssize_t i = 0; i < ne; i++) {
        int e = ed[i];
        if (e < 0 || e >= m || sr[e] < 0 || sr[e] >= n || cp[sr[e]] < 0 || cp[sr[e]] >= ncomp) {
            PyErr_SetString(PyExc_ValueError, "firsts: an index out of range");
            goto done;
        }
    }
    for (Py_ssize_t i = 0; i < ne; i++) {
        int c = cp[sr[ed[i]]];
        if (kp && !kp[c])
            continue;
        if (++count[c] == nth)
            pick[c] = ed[i];
    }
    result = PyDict_New();
    if (!result)
        goto done;
    for (Py_ssize_t i = 0; i < ne; i++) {
        int c = cp[sr[ed[i]]];
        if (pick[c] < 0)
            continue;
        PyObject *k = PyLong_FromLong(c), *v = PyLong_FromLong(pick[c]);
        int bad = !k || !v || PyDict_SetItem(result, k, v) < 0;
        Py_XDECREF(k);
        Py_XDECREF(v);
        if (bad) {
            Py_CLEAR(result);
            goto done;
        }
        pick[c] = -1;
    }
done:
    free(pick);
    free(count);
    RELEASE(&comp, &src, &edges, &keep);
    return result;
}

/* where(mask) -> bytes of an array('i'): the indices of the nonzero bytes, increasing. */
static PyObject *where(PyObject *self, PyObject *arg) {
    Buf mask = {0};
    if (take_bytes(arg, &mask, "mask") < 0)
        return NULL;
    const unsigned char *mk = mask.view.buf;
    Py_ssize_t len = mask.view.len, count = 0;
    PyObject *out = NULL;
    if (len > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "where: mask too long");
        goto done;
    }
    for (Py_ssize_t i = 0; i < len; i++)
        count += mk[i] != 0;
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int) * count);
    if (!out)
        goto done;
    int *ix = (int *)PyBytes_AS_STRING(out);
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < len; i++)
        if (mk[i])
            ix[k++] = (int)i;
done:
    release(&mask);
    return out;
}

/* same_component(cs, cd) -> bytes: 1 where cs[e] >= 0 and cs[e] == cd[e]. */
static PyObject *same_component(PyObject *self, PyObject *args) {
    PyObject *ocs, *ocd;
    Buf cs = {0}, cd = {0};
    if (!PyArg_ParseTuple(args, "OO", &ocs, &ocd))
        return NULL;
    PyObject *out = NULL;
    if (take_ints(ocs, &cs, 0, "cs") < 0 || take_ints(ocd, &cd, 0, "cd") < 0)
        goto done;
    Py_ssize_t m = LEN(cs);
    if (LEN(cd) != m) {
        PyErr_SetString(PyExc_ValueError, "same_component: arrays of different lengths");
        goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, m);
    if (!out)
        goto done;
    unsigned char *o = (unsigned char *)PyBytes_AS_STRING(out);
    const int *a = INTS(cs), *b = INTS(cd);
    for (Py_ssize_t e = 0; e < m; e++)
        o[e] = a[e] >= 0 && a[e] == b[e];
done:
    RELEASE(&cs, &cd);
    return out;
}

/* first_reached(parent, among, comp) -> [state]: the states q marked in
 * `among` with parent[q] != -2, the first (smallest) of each component,
 * in increasing order. */
static PyObject *first_reached(PyObject *self, PyObject *args) {
    PyObject *oparent, *oamong, *ocomp;
    Buf parent = {0}, among = {0}, comp = {0};
    if (!PyArg_ParseTuple(args, "OOO", &oparent, &oamong, &ocomp))
        return NULL;
    PyObject *out = NULL;
    unsigned char *seen = NULL;
    if (take_ints(oparent, &parent, 0, "parent") < 0 || take_bytes(oamong, &among, "among") < 0 ||
        take_ints(ocomp, &comp, 0, "comp") < 0)
        goto done;
    Py_ssize_t n = LEN(parent);
    if (among.view.len != n || LEN(comp) != n) {
        PyErr_SetString(PyExc_ValueError, "first_reached: arrays of the wrong length");
        goto done;
    }
    const int *par = INTS(parent), *cp = INTS(comp);
    const unsigned char *am = among.view.buf;
    seen = calloc((size_t)(n > 0 ? n : 1), 1);      /* components are numbered below n */
    if (!seen) {
        PyErr_NoMemory();
        goto done;
    }
    out = PyList_New(0);
    if (!out)
        goto done;
    for (Py_ssize_t q = 0; q < n; q++) {
        if (!am[q] || par[q] == -2)
            continue;
        int c = cp[q];
        if (c < 0 || c >= n) {
            Py_CLEAR(out);
            PyErr_SetString(PyExc_ValueError, "first_reached: a reached state outside every component");
            goto done;
        }
        if (seen[c])
            continue;
        seen[c] = 1;
        PyObject *v = PyLong_FromSsize_t(q);
        if (!v || PyList_Append(out, v) < 0) {
            Py_XDECREF(v);
            Py_CLEAR(out);
            goto done;
        }
        Py_DECREF(v);
    }
done:
    free(seen);
    RELEASE(&parent, &among, &comp);
    return out;
}

/* seed(roots, parent, tag, queue) -> qlen
 * The start of a multi-source search from the states marked in `roots`
 * (bytes, one per state): parent -1 and tag q at a root, parent -2 and tag -1
 * elsewhere; the roots in increasing order in queue. */
static PyObject *seed(PyObject *self, PyObject *args) {
    PyObject *oroots, *oparent, *otag, *oqueue;
    Buf roots = {0}, parent = {0}, tag = {0}, queue = {0};
    if (!PyArg_ParseTuple(args, "OOOO", &oroots, &oparent, &otag, &oqueue))
        return NULL;
    PyObject *result = NULL;
    if (take_bytes(oroots, &roots, "roots") < 0 || take_ints(oparent, &parent, 1, "parent") < 0 ||
        take_ints(otag, &tag, 1, "tag") < 0 || take_ints(oqueue, &queue, 1, "queue") < 0)
        goto done;
    Py_ssize_t n = roots.view.len;
    if (LEN(parent) != n || LEN(tag) != n || LEN(queue) < n) {
        PyErr_SetString(PyExc_ValueError, "seed: arrays of the wrong length");
        goto done;
    }
    const unsigned char *r = roots.view.buf;
    int *par = INTS(parent), *tg = INTS(tag), *q = INTS(queue);
    Py_ssize_t qlen = 0;
    for (Py_ssize_t v = 0; v < n; v++) {
        if (r[v]) {
            par[v] = -1;
            tg[v] = (int)v;
            q[qlen++] = (int)v;
        } else {
            par[v] = -2;
            tg[v] = -1;
        }
    }
    result = PyLong_FromSsize_t(qlen);
done:
    RELEASE(&roots, &parent, &tag, &queue);
    return result;
}


typedef struct {
    uint32_t hash;            /* the low 32 bits of the name's hash */
    int32_t index;            /* the state, -1 for an empty slot */
} Slot;

/* line_starts(text) -> bytes of an array('q'): 0 and the offset after every
 * '\n' of the str, in order (the line table of dslc.source.SourceFile). */
#define COUNT_NEWLINES(T)                                   \
    do {                                                    \
        const T *p = (const T *)data;                       \
        for (Py_ssize_t i = 0; i < len; i++)                \
            count += p[i] == '\n';                          \
    } while (0)
#define LIST_NEWLINES(T)                                    \
    do {                                                    \
        const T *p = (const T *)data;                       \
        for (Py_ssize_t i = 0; i < len; i++)                \
            if (p[i] == '\n')                               \
                starts[k++] = (long long)(i + 1);           \
    } while (0)

static PyObject *line_starts(PyObject *self, PyObject *arg) {
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "line_starts: expected str");
        return NULL;
    }
    Py_ssize_t len = PyUnicode_GET_LENGTH(arg);
    int kind = PyUnicode_KIND(arg);
    const void *data = PyUnicode_DATA(arg);
    Py_ssize_t count = 1;
    if (kind == PyUnicode_1BYTE_KIND)
        COUNT_NEWLINES(Py_UCS1);
    else if (kind == PyUnicode_2BYTE_KIND)
        COUNT_NEWLINES(Py_UCS2);
    else
        COUNT_NEWLINES(Py_UCS4);
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(long long) * count);
    if (!out)
        return NULL;
    long long *starts = (long long *)PyBytes_AS_STRING(out);
    Py_ssize_t k = 0;
    starts[k++] = 0;
    if (kind == PyUnicode_1BYTE_KIND)
        LIST_NEWLINES(Py_UCS1);
    else if (kind == PyUnicode_2BYTE_KIND)
        LIST_NEWLINES(Py_UCS2);
    else
        LIST_NEWLINES(Py_UCS4);
    return out;
}

/* ------------------------------------------------------------------ the flat reader's rows
 * flat_rows(text, pos, stop, spans=0) -> (names, targets, shapes) or None
 *
 * With spans=1, names and targets are not strings but the bytes of an
 * array('q') of (start, end) offsets into the text, two per name: no string
 * object is made per state (see resolve_spans).
 *
 * What `_flat_state().findall(text, pos, stop)` gives in
 * dslc/syntax/fast_automaton.py, for windows where every row is a state:
 * the state names (group 1), the non-empty target names in order (groups 4
 * and 7) and per state the shape triple (groups 2, 5, 8).  None whenever the
 * regular expression would yield a row of its catch-all group 9 (the caller
 * then runs the regular expression itself, which declines).  The pattern's
 * optional output and store of a transition are matched greedily: where the
 * greedy choice fails, every other choice fails too (what follows must then
 * be a separator, `}` or a guard, and none of them starts with `output`,
 * `store` or a quote), so no backtracking is needed.
 * tests/test_fast_parser.py compares the two on random texts. */
typedef struct {
    int kind;
    const void *data;
    Py_ssize_t stop;
} Text;

#define NONE_CH ((Py_UCS4)0xFFFFFFFF)

static inline Py_UCS4 ch(const Text *t, Py_ssize_t i) {
    return i < t->stop ? PyUnicode_READ(t->kind, t->data, i) : NONE_CH;
}
static inline int word_ch(Py_UCS4 c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}
static inline int space_ch(Py_UCS4 c) {
    return c == ' ' || c == '\t' || c == '\f' || c == '\r' || c == '\n' || c == 0xA0;
}
/* the ASCII literal s at i */
static int lit(const Text *t, Py_ssize_t i, const char *s) {
    for (; *s; s++, i++)
        if (ch(t, i) != (Py_UCS4)(unsigned char)*s)
            return 0;
    return 1;
}
/* the keyword s at i, not followed by a word character ((?![A-Za-z0-9_])) */
static int keyword_at(const Text *t, Py_ssize_t i, const char *s) {
    return lit(t, i, s) && !word_ch(ch(t, i + (Py_ssize_t)strlen(s)));
}
static Py_ssize_t spaces(const Text *t, Py_ssize_t i) {
    while (space_ch(ch(t, i)))
        i++;
    return i;
}
static Py_ssize_t seps(const Text *t, Py_ssize_t i) {
    Py_UCS4 c;
    while ((c = ch(t, i)) != NONE_CH && (space_ch(c) || c == ';'))
        i++;
    return i;
}
/* the end of the name at i, or -1 */
static Py_ssize_t name_end(const Text *t, Py_ssize_t i) {
    Py_UCS4 c = ch(t, i);
    if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')))
        return -1;
    i++;
    while (word_ch(ch(t, i)))
        i++;
    return i;
}
/* a guard up to its arrow and the spaces after it: the end, or -1 */
static Py_ssize_t guard_arrow(const Text *t, Py_ssize_t i) {
    Py_UCS4 c;
    if (keyword_at(t, i, "true")) {
        i += 4;
    } else if (lit(t, i, "insample") && !word_ch(c = ch(t, i + 8)) && c != '\'' && c != 0x2032) {
        i += 8;
        while ((c = ch(t, i)) != NONE_CH && c != '-' && c != 0x2192 && c != '{' && c != '}' && c != ';')
            i++;
    } else {
        return -1;
    }
    i = spaces(t, i);
    if (lit(t, i, "->"))
        i += 2;
    else if (ch(t, i) == 0x2192)
        i += 1;
    else
        return -1;
    return spaces(t, i);
}
/* the value of an output clause at i: its end, or -1 */
static Py_ssize_t output_value(const Text *t, Py_ssize_t i) {
    Py_UCS4 c = ch(t, i);
    if (lit(t, i, "insample") && ((c = ch(t, i + 8)) == '\'' || c == 0x2032))
        return i + 9;
    Py_ssize_t e = name_end(t, i);            /* insample, top, bot or any name */
    if (e >= 0)
        return e;
    c = ch(t, i);
    if (c == 0x22A4 || c == 0x22A5)
        return i + 1;
    if (c == '"') {
        for (Py_ssize_t j = i + 1; (c = ch(t, j)) != NONE_CH; j++) {
            if (c == '"')
                return j + 1;
            if (c == '\n')
                return -1;
        }
    }
    return -1;
}
/* an optional output clause and an optional `store` after a target */
static Py_ssize_t tail(const Text *t, Py_ssize_t i) {
    Py_ssize_t j = spaces(t, i);
    if (keyword_at(t, j, "output")) {
        Py_ssize_t v = output_value(t, spaces(t, j + 6));
        if (v >= 0)
            i = v;
    }
    j = spaces(t, i);
    if (keyword_at(t, j, "store"))
        i = j + 5;
    return i;
}

#define RECENT 8

/* Whether text[a[i]:b[i]] equals the i-th string of the tuple `key`, for i < 3. */
static int span_is(const Text *t, const Py_ssize_t *a, const Py_ssize_t *b, PyObject *key) {
    for (int i = 0; i < 3; i++) {
        PyObject *str = PyTuple_GET_ITEM(key, i);
        Py_ssize_t len = b[i] - a[i];
        if (PyUnicode_GET_LENGTH(str) != len)
            return 0;
        int kind = PyUnicode_KIND(str);
        const void *data = PyUnicode_DATA(str);
        if (kind == t->kind) {
            if (memcmp(data, (const char *)t->data + a[i] * kind, (size_t)(len * kind)) != 0)
                return 0;
        } else {
            for (Py_ssize_t j = 0; j < len; j++)
                if (PyUnicode_READ(kind, data, j) != ch(t, a[i] + j))
                    return 0;
        }
    }
    return 1;
}

/* a growable array of int64 */
typedef struct {
    int64_t *data;
    Py_ssize_t len, cap;
} Int64s;

static int push2(Int64s *a, int64_t x, int64_t y) {
    if (a->len + 2 > a->cap) {
        Py_ssize_t cap = a->cap ? 2 * a->cap : 256;
        int64_t *data = realloc(a->data, sizeof(int64_t) * (size_t)cap);
        if (!data) {
            PyErr_NoMemory();
            return -1;
        }
        a->data = data;
        a->cap = cap;
    }
    a->data[a->len++] = x;
    a->data[a->len++] = y;
    return 0;
}

static PyObject *flat_rows(PyObject *self, PyObject *args) {
    PyObject *text;
    Py_ssize_t pos, stop;
    int want_spans = 0;
    Int64s name_spans = {0}, target_spans = {0};
    if (!PyArg_ParseTuple(args, "Unn|i", &text, &pos, &stop, &want_spans))
        return NULL;
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    if (pos < 0 || stop > len || pos > stop) {
        PyErr_SetString(PyExc_ValueError, "flat_rows: a window outside the text");
        return NULL;
    }
    Text t = {PyUnicode_KIND(text), PyUnicode_DATA(text), stop};
    PyObject *recent[RECENT] = {NULL};
    int next_recent = 0;
    PyObject *names = PyList_New(0), *targets = PyList_New(0), *shapes = PyList_New(0);
    PyObject *empty = PyUnicode_New(0, 0), *result = NULL;
    if (!names || !targets || !shapes || !empty)
        goto done;
    Py_ssize_t p = pos;
    for (;;) {
        p = seps(&t, p);
        if (p >= stop)
            break;
        if (!keyword_at(&t, p, "state"))
            goto decline;
        Py_ssize_t n1 = spaces(&t, p + 5), n1e = name_end(&t, n1);
        if (n1e < 0)
            goto decline;
        Py_ssize_t q = spaces(&t, n1e);
        if (keyword_at(&t, q, "input"))
            q += 5;
        else if (keyword_at(&t, q, "noinput"))
            q += 7;
        else
            goto decline;
        Py_UCS4 c;
        while ((c = ch(&t, q)) != NONE_CH && c != '{' && c != '}')
            q++;
        if (c != '{')
            goto decline;
        q = seps(&t, q + 1);
        /* spans: [a0, a1) name, [b0, b1) shape 1, [c0, c1) target 1, [d0, d1) shape 2,
           [e0, e1) target 2, [f0, f1) shape 3; empty when absent */
        Py_ssize_t b1, c0 = 0, c1 = 0, d1 = 0, e0 = 0, e1 = 0, f1 = 0;
        if (ch(&t, q) == '}') {
            b1 = q + 1;
            p = b1;
        } else {
            if ((b1 = guard_arrow(&t, q)) < 0 || (c1 = name_end(&t, c0 = b1)) < 0)
                goto decline;
            q = seps(&t, tail(&t, c1));
            if (ch(&t, q) == '}') {
                d1 = q + 1;
                p = d1;
            } else {
                if ((d1 = guard_arrow(&t, q)) < 0 || (e1 = name_end(&t, e0 = d1)) < 0)
                    goto decline;
                q = seps(&t, tail(&t, e1));
                if (ch(&t, q) != '}')
                    goto decline;
                f1 = q + 1;
                p = f1;
            }
        }
        PyObject *nm;
        if (want_spans) {
            if (push2(&name_spans, n1, n1e) < 0)
                goto done;
            nm = Py_None;
            Py_INCREF(nm);
        } else {
            nm = PyUnicode_Substring(text, n1, n1e);
        }
        /* the shape triple: one of the last few met again (generated automata
           have a handful), else new strings */
        Py_ssize_t sa[3] = {n1e, c1, e1}, sb[3] = {b1, d1 ? d1 : c1, f1 ? f1 : e1};
        PyObject *key = NULL;
        for (int r = 0; r < RECENT && !key; r++)
            if (recent[r] && span_is(&t, sa, sb, recent[r]))
                key = recent[r];
        if (key) {
            Py_INCREF(key);
        } else {
            PyObject *s1 = PyUnicode_Substring(text, sa[0], sb[0]);
            PyObject *s2 = d1 ? PyUnicode_Substring(text, sa[1], sb[1]) : (Py_INCREF(empty), empty);
            PyObject *s3 = f1 ? PyUnicode_Substring(text, sa[2], sb[2]) : (Py_INCREF(empty), empty);
            key = (s1 && s2 && s3) ? PyTuple_Pack(3, s1, s2, s3) : NULL;
            Py_XDECREF(s1);
            Py_XDECREF(s2);
            Py_XDECREF(s3);
            if (key) {
                Py_XDECREF(recent[next_recent]);
                Py_INCREF(key);
                recent[next_recent] = key;
                next_recent = (next_recent + 1) % RECENT;
            }
        }
        int bad = !nm || !key || (!want_spans && PyList_Append(names, nm) < 0) || PyList_Append(shapes, key) < 0;
        Py_XDECREF(nm);
        Py_XDECREF(key);
        if (bad)
            goto done;
        for (int k = 0; k < 2; k++) {
            Py_ssize_t a = k ? e0 : c0, b = k ? e1 : c1;
            if (b <= a)
                continue;
            if (want_spans) {
                if (push2(&target_spans, a, b) < 0)
                    goto done;
                continue;
            }
            PyObject *tg = PyUnicode_Substring(text, a, b);
            if (!tg || PyList_Append(targets, tg) < 0) {
                Py_XDECREF(tg);
                goto done;
            }
            Py_DECREF(tg);
        }
    }
    if (want_spans) {
        PyObject *nb = PyBytes_FromStringAndSize((const char *)name_spans.data,
                                                 (Py_ssize_t)sizeof(int64_t) * name_spans.len);
        PyObject *tb = nb ? PyBytes_FromStringAndSize((const char *)target_spans.data,
                                                      (Py_ssize_t)sizeof(int64_t) * target_spans.len) : NULL;
        if (nb && tb)
            result = PyTuple_Pack(3, nb, tb, shapes);
        Py_XDECREF(nb);
        Py_XDECREF(tb);
        goto done;
    }
    result = PyTuple_Pack(3, names, targets, shapes);
    goto done;
decline:
    Py_INCREF(Py_None);
    result = Py_None;
done:
    for (int r = 0; r < RECENT; r++)
        Py_XDECREF(recent[r]);
    Py_XDECREF(names);
    Py_XDECREF(targets);
    Py_XDECREF(shapes);
    Py_XDECREF(empty);
    free(name_spans.data);
    free(target_spans.data);
    return result;
}

/* resolve_spans(text, names, targets) -> (status, bytes)
 * As resolve, for names and targets given as spans of the text (the bytes
 * of an array('q') of (start, end) pairs, from flat_rows(..., spans=1)):
 * the index of every target among the names, with no string object made.
 * Hashes are computed here from the characters (FNV-1a over the code units:
 * the text has one kind), and names compare by their characters. */
static inline uint64_t span_hash(const Text *t, Py_ssize_t a, Py_ssize_t b) {
    uint64_t h = 1469598103934665603ULL;
    if (t->kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *d = (const Py_UCS1 *)t->data;
        for (Py_ssize_t i = a; i < b; i++)
            h = (h ^ d[i]) * 1099511628211ULL;
    } else if (t->kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *d = (const Py_UCS2 *)t->data;
        for (Py_ssize_t i = a; i < b; i++)
            h = (h ^ d[i]) * 1099511628211ULL;
    } else {
        for (Py_ssize_t i = a; i < b; i++)
            h = (h ^ PyUnicode_READ(t->kind, t->data, i)) * 1099511628211ULL;
    }
    return h ^ (h >> 29);
}

static inline int same_span(const Text *t, Py_ssize_t a, Py_ssize_t b, Py_ssize_t c, Py_ssize_t d) {
    return b - a == d - c &&
           memcmp((const char *)t->data + a * t->kind, (const char *)t->data + c * t->kind,
                  (size_t)((b - a) * t->kind)) == 0;
}

#define SPAN_BATCH 32

/* the hashes of `count` spans into hs, and their first slots prefetched */
static inline void prefetch_slots(const Text *t, const int64_t *spans, Py_ssize_t count, const Slot *slot,
                                  size_t mask, uint64_t *hs) {
    for (Py_ssize_t b = 0; b < count; b++) {
        hs[b] = span_hash(t, spans[2 * b], spans[2 * b + 1]);
        __builtin_prefetch(&slot[hs[b] & mask]);
    }
}

/* for each of `count` hashes whose first slot holds a name with the same
 * tag, that name's offsets, then its characters, prefetched */
static inline void prefetch_names(const Text *t, const int64_t *ns, Py_ssize_t count, const Slot *slot,
                                  size_t mask, const uint64_t *hs) {
    int32_t k[SPAN_BATCH];
    for (Py_ssize_t b = 0; b < count; b++) {
        const Slot *s = &slot[hs[b] & mask];
        k[b] = s->index >= 0 && s->hash == (uint32_t)(hs[b] >> 32) ? s->index : -1;
        if (k[b] >= 0)
            __builtin_prefetch(&ns[2 * (Py_ssize_t)k[b]]);
    }
    for (Py_ssize_t b = 0; b < count; b++)
        if (k[b] >= 0)
            __builtin_prefetch((const char *)t->data + ns[2 * (Py_ssize_t)k[b]] * t->kind);
}

static int take_spans(PyObject *obj, Buf *b, Py_ssize_t len, const char *what) {
    b->held = 0;
    if (PyObject_GetBuffer(obj, &b->view, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    b->held = 1;
    const int64_t *s = (const int64_t *)b->view.buf;
    Py_ssize_t n = b->view.len / (Py_ssize_t)sizeof(int64_t);
    if (b->view.len % (Py_ssize_t)(2 * sizeof(int64_t)) != 0) {
        PyErr_Format(PyExc_ValueError, "%s: expected (start, end) pairs of int64", what);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i += 2)
        if (s[i] < 0 || s[i] > s[i + 1] || s[i + 1] > len) {
            PyErr_Format(PyExc_ValueError, "%s: a span outside the text", what);
            return -1;
        }
    return 0;
}

static PyObject *resolve_spans(PyObject *self, PyObject *args) {
    PyObject *text, *onames, *otargets;
    Buf names = {0}, targets = {0};
    if (!PyArg_ParseTuple(args, "UOO", &text, &onames, &otargets))
        return NULL;
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    PyObject *result = NULL, *out = NULL;
    Slot *slot = NULL;
    int status = 0;
    if (take_spans(onames, &names, len, "names") < 0 || take_spans(otargets, &targets, len, "targets") < 0)
        goto done;
    Text t = {PyUnicode_KIND(text), PyUnicode_DATA(text), len};
    const int64_t *ns = (const int64_t *)names.view.buf, *ts = (const int64_t *)targets.view.buf;
    Py_ssize_t n = names.view.len / (Py_ssize_t)(2 * sizeof(int64_t));
    Py_ssize_t m = targets.view.len / (Py_ssize_t)(2 * sizeof(int64_t));
    if (n >= INT_MAX / 4 || m > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "resolve_spans: too many names");
        goto done;
    }
    size_t cap = 16;
    while (cap < (size_t)n * 2)
        cap <<= 1;
    size_t mask = cap - 1;
    slot = malloc(sizeof(Slot) * cap);
    if (!slot) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < cap; i++)
        slot[i].index = -1;
    /* Lookups are random accesses into a table larger than the caches: they
     * go in batches, whose slots (then, for the targets, the names' offsets
     * and characters the slots point to) are prefetched before the exact
     * probes, which are the plain loops below. */
    uint64_t hs[SPAN_BATCH];
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n && !status; i++) {
        Py_ssize_t a = ns[2 * i], b = ns[2 * i + 1];
        if (i % SPAN_BATCH == 0)
            prefetch_slots(&t, ns + 2 * i, (n - i < SPAN_BATCH ? n - i : SPAN_BATCH), slot, mask, hs);
        uint64_t h = hs[i % SPAN_BATCH];
        size_t j = (size_t)h & mask;
        while (slot[j].index >= 0) {
            Py_ssize_t k = slot[j].index;
            if (slot[j].hash == (uint32_t)(h >> 32) && same_span(&t, ns[2 * k], ns[2 * k + 1], a, b)) {
                status = 1;
                break;
            }
            j = (j + 1) & mask;
        }
        if (status)
            break;
        slot[j].hash = (uint32_t)(h >> 32);
        slot[j].index = (int32_t)i;
    }
    Py_END_ALLOW_THREADS
    if (status == 0) {
        out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int) * m);
        if (!out)
            goto done;
        int *dst = (int *)PyBytes_AS_STRING(out);
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < m && !status; i++) {
            Py_ssize_t a = ts[2 * i], b = ts[2 * i + 1];
            if (i % SPAN_BATCH == 0) {
                Py_ssize_t count = m - i < SPAN_BATCH ? m - i : SPAN_BATCH;
                prefetch_slots(&t, ts + 2 * i, count, slot, mask, hs);
                prefetch_names(&t, ns, count, slot, mask, hs);
            }
            uint64_t h = hs[i % SPAN_BATCH];
            size_t j = (size_t)h & mask;
            int found = -1;
            while (slot[j].index >= 0) {
                Py_ssize_t k = slot[j].index;
                if (slot[j].hash == (uint32_t)(h >> 32) && same_span(&t, ns[2 * k], ns[2 * k + 1], a, b)) {
                    found = (int)k;
                    break;
                }
                j = (j + 1) & mask;
            }
            if (found < 0)
                status = 2;
            dst[i] = found;
        }
        Py_END_ALLOW_THREADS
    }
    if (status != 0) {
        Py_CLEAR(out);
        out = PyBytes_FromStringAndSize("", 0);
        if (!out)
            goto done;
    }
    result = Py_BuildValue("(iO)", status, out);
done:
    Py_XDECREF(out);
    free(slot);
    RELEASE(&names, &targets);
    return result;
}

static PyMethodDef methods[] = {
    {"tarjan", tarjan, METH_VARARGS, "Strongly connected components in Tarjan's completion order."},
    {"postorder", postorder, METH_VARARGS, "Depth-first postorder numbering of a forward graph."},
    {"bfs", bfs, METH_VARARGS, "Continue a breadth-first search over CSR arrays."},
    {"group", group, METH_VARARGS, "Stable counting sort of edges by a key (a CSR index)."},
    {"critical", critical, METH_VARARGS, "The critical transitions and the rate classes they use."},
    {"weigh", weigh, METH_VARARGS, "Costs of critical transitions and the longest path over them."},
    {"take", take, METH_VARARGS, "values[index[i]] for every i, as the bytes of an array('i')."},
    {"expand", expand, METH_O, "i repeated counts[i] times for every i, as the bytes of an array('i')."},
    {"spread", spread, METH_VARARGS, "The CSR rows values[start[j]:start[j+1]] of every j in ids, concatenated."},
    {"firsts", firsts, METH_VARARGS, "The first (or second) of increasing edges in each component."},
    {"seed", seed, METH_VARARGS, "The start of a multi-source search from a mask of states."},
    {"resolve_spans", resolve_spans, METH_VARARGS, "resolve, for names and targets given as spans of a text."},
    {"line_starts", line_starts, METH_O, "0 and the offset after every newline of a str."},
    {"where", where, METH_O, "The indices of the nonzero bytes of a mask."},
    {"same_component", same_component, METH_VARARGS, "1 where both ends of a transition share a component."},
    {"first_reached", first_reached, METH_VARARGS, "The first reached marked state of each component."},
    {"flat_rows", flat_rows, METH_VARARGS, "The flat reader's rows of a window (names, targets, shapes), or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "dslc._native", "Native loops of the automaton path.", -1, methods,
};

#ifndef DSLC_SOURCE_CRC32
#define DSLC_SOURCE_CRC32 ""
#endif

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddStringConstant(m, "SOURCE_CRC32", DSLC_SOURCE_CRC32) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
