"""Chinese search: character bigrams (samecore's search index, src/search/analyzer.rs) against
a word index cut by jieba, on the Chinese sentences of jieba's own test file (jieba 0.42.1's
sdist, fetched by pip). For each query: the sentences holding it (truth) and those a word
index finds (the query cut by jieba, all its words required). `pip install jieba` first;
`python3 benches/cjk_bigrams_vs_jieba.py`. Results in docs/benchmarks.md (Search)."""
import glob, random, re, subprocess, sys, tarfile, tempfile
import jieba
jieba.setLogLevel(60)
tmp = tempfile.mkdtemp()
subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                "jieba==0.42.1", "-d", tmp], check=True)
with tarfile.open(glob.glob(f"{tmp}/jieba-*.tar.gz")[0]) as t:
    src = t.extractfile("jieba-0.42.1/test/test.py").read().decode("utf-8")
sents = sorted({s for s in re.findall(r"'([^']*)'|\"([^\"]*)\"", src) for s in s if re.search(r"[\u4e00-\u9fff]", s)})
han = re.compile(r"[\u4e00-\u9fff]{2}")
pairs = sorted({m for s in sents for i in range(len(s) - 1) for m in [s[i:i+2]] if han.fullmatch(m)})
random.seed(7)
sample = random.sample(pairs, min(1000, len(pairs)))
for mode, cut in (("precise", jieba.lcut), ("search", jieba.lcut_for_search)):
    words = [set(cut(s)) for s in sents]
    found = total = 0
    for q in sample:
        truth = {i for i, s in enumerate(sents) if q in s}
        qw = [w for w in cut(q) if w.strip()]
        hit = {i for i, ws in enumerate(words) if all(w in ws for w in qw)}
        found += len(truth & hit); total += len(truth)
    tokens = sum(len(cut(s)) for s in sents)
    print(f"jieba {mode}: recall {found/total:.3f} over {len(sample)} two-character queries ({total} sentence hits); {tokens} tokens")
chars = sum(len(han.findall(s)) for s in sents)
uni = sum(sum(1 for c in s if '\u4e00' <= c <= '\u9fff') for s in sents)
print(f"bigrams: recall 1.000 by construction; {uni} unigrams + {sum(1 for s in sents for i in range(len(s)-1) if han.fullmatch(s[i:i+2]))} bigrams; {len(sents)} sentences")
# Queries a reader would type: the two-character words jieba itself finds in the sentences.
wordq = sorted({w for s in sents for w in jieba.lcut(s) if han.fullmatch(w)})
for mode, cut in (("precise", jieba.lcut), ("search", jieba.lcut_for_search)):
    words = [set(cut(s)) for s in sents]
    found = total = 0
    for q in wordq:
        truth = {i for i, s in enumerate(sents) if q in s}
        hit = {i for i, ws in enumerate(words) if all(w in ws for w in cut(q))}
        found += len(truth & hit); total += len(truth)
    print(f"two-character words as queries ({len(wordq)}): jieba {mode} recall {found/total:.3f} ({total} sentence hits)")

# samecore's own index on the same sentences (one page each, searched in whole-text mode: a
# page of one sentence has no content block to speak of), when its binary is given.
if len(sys.argv) > 1:
    import json, os
    binary = sys.argv[1]
    pages = os.path.join(tmp, "pages")
    os.makedirs(pages)
    for i, s in enumerate(sents):
        with open(os.path.join(pages, f"s{i:03}.html"), "w", encoding="utf-8") as f:
            f.write(f"<html lang=zh><body><p>{s}</p></body></html>")
    project = os.path.join(tmp, "p.samecore")
    subprocess.run([binary, "run", pages, "--project", project], check=True, capture_output=True)
    for name, queries in (("random pairs", sample[:200]), ("two-character words", wordq)):
        found = total = extra = 0
        for q in queries:
            truth = {i for i, s in enumerate(sents) if q in s}
            out = subprocess.run([binary, "search", "--project", project, "--pages", "--whole-text",
                                  "--json", q], check=True, capture_output=True, text=True).stdout
            hit = {int(k.split()[0][1:4]) for st in json.loads(out)["stories"] for k in st["pages"]}
            found += len(truth & hit); total += len(truth); extra += len(hit - truth)
        print(f"samecore bigrams, {name} ({len(queries)}): recall {found/total:.3f}, {extra} pages without the string")
