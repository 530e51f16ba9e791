#!/usr/bin/env python3
"""Splits a `perf record -g` profile of `intent-bench pipeline` by worker process.

usage: perf-by-process.py perf.data PID:NAME ... (pids: `perf report --sort pid`; the
executable of each: `perf report --pid PID --sort dso`). Prints, per process, self time by
category, inclusive buckets from the call chains (lower bounds where frames lack frame
pointers) and the top self symbols (Swift names demangled with swift-demangle).
"""
import subprocess, sys, collections, re
data = sys.argv[1]
procs = dict(a.split(":") for a in sys.argv[2:])
out = subprocess.run(["perf", "script", "-i", data, "-F", "pid,comm,ip,sym,dso"], capture_output=True, text=True).stdout
samples = collections.defaultdict(list)  # pid -> [(comm, [(sym,dso)...])]
cur = None
for line in out.split("\n"):
    if not line.strip():
        if cur: samples[cur[0]].append((cur[1], cur[2]))
        cur = None; continue
    if not line.startswith("\t") and not line.startswith(" " * 8):
        m = re.match(r"\s*(\S+)\s+(\d+)\s*$", line)
        if m: cur = (m.group(2), m.group(1), [])
        else:
            m = re.match(r"\s*(.+?)\s+(\d+)\s*$", line)
            cur = (m.group(2), m.group(1), []) if m else None
        continue
    if cur is None: continue
    m = re.match(r"\s*([0-9a-f]+)\s+(.*)\s+\((.*)\)\s*$", line)
    if m: cur[2].append((m.group(2).split("+0x")[0], m.group(3).split("/")[-1]))
if cur: samples[cur[0]].append((cur[1], cur[2]))
# demangle
syms = set(s for p in procs for _, st in samples.get(p, []) for s, _ in st)
mangled = [s for s in syms if s.startswith("$s")]
dm = {}
if mangled:
    r = subprocess.run(["/opt/swift/usr/bin/swift-demangle", "--simplified", "--compact"], input="\n".join(mangled), capture_output=True, text=True).stdout.split("\n")
    dm = dict(zip(mangled, r))
def name(s): return dm.get(s, s)
def selfcat(sym, dso, comm):
    n = name(sym)
    if "kernel" in dso: return "kernel (syscalls, scheduling, page faults)"
    if sym.startswith(("rd_", "rdk", "cnd_", "mtx_", "thrd_", "tinycthread")) or comm.startswith("rdk:"): return "librdkafka (its own threads and calls)"
    if sym in ("malloc","free","cfree","realloc","calloc","_int_malloc","_int_free","_int_realloc","malloc_consolidate","unlink_chunk","__libc_malloc","__libc_free","_int_free_merge_chunk","_int_free_create_chunk","_int_free_maybe_consolidate","sysmalloc","tcache_get","tcache_put","__libc_calloc","__libc_realloc","_int_memalign","__posix_memalign","aligned_alloc","malloc_trim", "mtrim", "__malloc_trim") or "malloc" in sym: return "malloc/free (glibc)"
    if "libcrypto" in dso or sym.startswith(("sha256_", "SHA256", "EVP_", "evp_", "ossl_", "CRYPTO_", "HMAC")): return "SHA-256/HMAC (OpenSSL)"
    if sym.startswith(("swift_retain","swift_release","swift_allocObject","swift_deallocObject","swift_bridgeObject","_swift_release","_swift_retain","swift_slowAlloc","swift_slowDealloc","swift_isUniquely","swift_beginAccess","swift_endAccess","swift_arrayInit","swift_arrayDestroy","swift_allocBox","swift_deallocClassInstance","swift_deallocPartialClassInstance","swift_setDeallocating","swift_unknownObject","swift_initStackObject")) or "swift::" in sym: return "Swift ARC and allocation runtime"
    if sym.startswith(("swift_","__swift_")): return "Swift runtime (metadata, casts, generics)"
    if any(k in n for k in ("JSONParser","JSONValue","CanonicalEncoder","CanonicalJSON","CanonicalPayload","JSONReading","KeyedDecodingContainer","KeyedEncodingContainer","Decoder","Encoder","Codable","EventTime","civilFormat","EventEnvelope.attributes","encoded","decodeData","JSONValueDecoder","ExtensionAttributes","LedgerEvent.decode","LedgerEvent.write", "EventData", "Timestamp")): return "JSON decode/encode (IntentEvents)"
    if dso.startswith("libswiftCore") or n.startswith(("Swift.","(extension in Swift)","generic specialization <Swift", "specialized Swift", "specialized (extension in Swift)")) or "Hasher" in n or "Dictionary" in n or "_NativeDictionary" in n or "_RawDictionaryStorage" in n or "Array" in n.split(" ")[0:3].__str__(): return "Swift stdlib (String, Array, Dictionary, hashing)"
    if "Foundation" in dso: return "Foundation"
    if dso.startswith(("libc.so","libc-","libpthread","ld-linux")): return "libc other (memcpy, locks, futex wrappers)"
    return "other Swift (stage logic, workers, Kafka wrapper)"
incl_rules = [
    ("decode: envelope parse + payload decode", ("EventEnvelope.decode", "decodeData", "IncomingEvent.decode", "LedgerEvent.decode", "JSONParser")),
    ("encode: canonical JSON of outputs", ("EventEnvelope.encoded", "CanonicalJSONWriter", "CanonicalPayload", "CanonicalEncoder")),
    ("HMAC / SHA-256 (sign, verify, chain links)", ("HMACKey", "Digest.sha256", "EventAuthenticator.verify", "EventAuthenticator.signature", "RecordChain")),
    ("state followers (own records read back, ledger/messages/contacts)", ("TopicFollower",)),
    ("snapshots", ("Snapshot",)),
    ("chain stamping (ChainStamper)", ("ChainStamper",)),
]
for pid, pname in procs.items():
    ss = samples.get(pid, [])
    n = len(ss)
    if not n: print(f"== {pname}: no samples"); continue
    cats = collections.Counter(); top = collections.Counter(); incl = collections.Counter()
    for comm, stack in ss:
        if not stack: continue
        sym, dso = stack[0]
        cats[selfcat(sym, dso, comm)] += 1
        top[(name(sym)[:110], dso[:22])] += 1
        names = [name(s) for s, _ in stack]
        for label, keys in incl_rules:
            if any(any(k in x for k in keys) for x in names): incl[label] += 1
        if comm.startswith("rdk:"): incl["librdkafka's own threads (rdk:*)"] += 1
    print(f"== {pname} (pid {pid}): {n} samples")
    print("  self time by category:")
    for k, v in cats.most_common(): print(f"    {100*v/n:5.1f}%  {k}")
    print("  inclusive (a sample counts in every bucket on its stack):")
    for k, v in incl.most_common(): print(f"    {100*v/n:5.1f}%  {k}")
    print("  top self symbols:")
    for (s, d), v in top.most_common(18): print(f"    {100*v/n:5.1f}%  {s}  [{d}]")
