# scripts/hugo-site.py LIBRARY.json SITE: a Hugo site with the pages reader-snapshot renders from that
# library (`render --format html,markdown`): a page per book and per shelf, each in HTML and in
# Markdown (a Hugo output format), and the index; the same fields, the notes through Goldmark.
# For measurement only: make bench renders both, side by side (issue 18). Ours writes more besides
# (the list of all books, stats, the search index), so the comparison leans Hugo's way.
import json, os, re, sys, shutil
library = json.load(open(sys.argv[1]))
site = sys.argv[2]
shutil.rmtree(site, ignore_errors=True)
def slug(book):
    words = re.findall(r"[a-z0-9]+", (book.get("title") or "").lower())
    return f"{book['id']}-" + "-".join(words[:8]) if words else str(book["id"])
def q(text):
    return json.dumps(text or "")
shelf_of = {}
for shelf in library["shelves"]:
    for i in shelf["book_ids"]:
        shelf_of.setdefault(i, shelf)
os.makedirs(f"{site}/content/books")
os.makedirs(f"{site}/content/shelves")
for book in library["books"]:
    shelf = shelf_of.get(book["id"])
    note = (book.get("note") or {}).get("markdown") or ""
    cover = (book.get("cover") or {}).get("path") or ""
    with open(f"{site}/content/books/{slug(book)}.md", "w") as f:
        f.write("---\n")
        f.write(f"title: {q(book.get('title'))}\nauthor: {q(book.get('author'))}\nisbn: {q(book.get('isbn'))}\n")
        f.write(f"shelf: {q(shelf['name'] if shelf else '')}\nshelfid: {shelf['id'] if shelf else 0}\ncover: {q(cover)}\nadded: {q((book.get('created_at') or '')[:10])}\n")
        f.write("---\n" + note)
for shelf in library["shelves"]:
    with open(f"{site}/content/shelves/{shelf['id']}.md", "w") as f:
        f.write(f"---\ntitle: {q(shelf['name'])}\nshelfid: {shelf['id']}\n---\n")
open(f"{site}/config.toml", "w").write('''baseURL = "https://books.example.org/"
title = "Library"
disableKinds = ["taxonomy", "term", "RSS", "sitemap", "404", "robotsTXT"]
[outputFormats.MD]
mediaType = "text/markdown"
baseName = "index"
isPlainText = true
[outputs]
page = ["HTML", "MD"]
section = ["HTML"]
home = ["HTML"]
[markup.goldmark.renderer]
unsafe = false
''')
os.makedirs(f"{site}/layouts/_default")
open(f"{site}/layouts/_default/baseof.html", "w").write('''<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ block "title" . }}{{ .Site.Title }}{{ end }}</title>
<link rel="stylesheet" href="/assets/style.css"></head>
<body><header class="site-header"><a href="/index.html">{{ .Site.Title }}</a>
<nav><a href="/index.html">Shelves</a> <a href="/books.html">All books</a> <a href="/stats.html">Stats</a></nav></header>
<main>{{ block "main" . }}{{ end }}</main><footer><p>A snapshot, with Hugo.</p></footer></body></html>
''')
open(f"{site}/layouts/_default/single.html", "w").write('''{{ define "title" }}{{ .Title }} · {{ .Site.Title }}{{ end }}
{{ define "main" }}<nav class="breadcrumb"><a href="/index.html">Shelves</a> › {{ .Params.shelf }} › {{ .Title }}</nav>
<article class="book"><div class="book-cover">{{ with .Params.cover }}<img class="cover large" src="/{{ . }}" alt="Cover of {{ $.Title }}">{{ else }}<div class="cover placeholder">{{ .Title }}</div>{{ end }}</div>
<div class="book-details"><h1>{{ .Title }}</h1>{{ with .Params.author }}<p class="book-author">by {{ . }}</p>{{ end }}
<dl class="facts"><dt>ISBN</dt><dd>{{ with .Params.isbn }}{{ . }}{{ else }}—{{ end }}</dd><dt>Shelf</dt><dd>{{ .Params.shelf }}</dd><dt>Added</dt><dd>{{ .Params.added }}</dd></dl></div></article>
<section class="note"><h2>Notes</h2>{{ with .Content }}<div class="note-body">{{ . }}</div>{{ else }}<p class="empty">No notes.</p>{{ end }}</section>{{ end }}
''')
open(f"{site}/layouts/_default/single.md", "w").write('''---
title: {{ .Title | jsonify }}
author: {{ .Params.author | jsonify }}
isbn: {{ .Params.isbn | jsonify }}
shelf: {{ .Params.shelf | jsonify }}
---
# {{ .Title }}

{{ .RawContent }}
''')
os.makedirs(f"{site}/layouts/shelves")
open(f"{site}/layouts/shelves/single.html", "w").write('''{{ define "main" }}<h1>{{ .Title }}</h1><ul class="book-list">{{ $id := .Params.shelfid }}{{ range where (where .Site.RegularPages "Section" "books") "Params.shelfid" $id }}<li><a href="{{ .RelPermalink }}">{{ with .Params.cover }}<img class="cover" src="/{{ . }}" loading="lazy" alt="">{{ end }}<span>{{ .Title }}</span> <span>{{ .Params.author }}</span></a></li>{{ end }}</ul>{{ end }}
''')
open(f"{site}/layouts/shelves/single.md", "w").write('''# {{ .Title }}
{{ $id := .Params.shelfid }}{{ range where (where .Site.RegularPages "Section" "books") "Params.shelfid" $id }}
- [{{ .Title }}]({{ .RelPermalink }}) {{ .Params.author }}{{ end }}
''')
open(f"{site}/layouts/index.html", "w").write('''{{ define "main" }}<h1>{{ .Site.Title }}</h1><ul>{{ range where .Site.RegularPages "Section" "shelves" }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul>{{ end }}
''')
print("books", len(library["books"]), "shelves", len(library["shelves"]))
