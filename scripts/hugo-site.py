# scripts/hugo-site.py LIBRARY.json SITE: a Hugo site with the pages reader-snapshot renders from that
# library (`render --format html,markdown`), made as a Hugo user would make it: a page per book, in
# HTML and in Markdown (a Hugo output format), the notes through Goldmark; shelves, authors and years
# as taxonomies, so that each of their pages lists its books without scanning the others (a term's
# .Pages), in HTML and Markdown too; the list of all books (the books section), the authors' index
# and the home page. For measurement only: make bench renders both, side by side. Ours writes more
# besides (stats, the search and lookup indexes, the offline list), so the comparison leans Hugo's way.
import json, os, re, sys, shutil
library = json.load(open(sys.argv[1]))
site = sys.argv[2]
shutil.rmtree(site, ignore_errors=True)
def slug(book):
    words = re.findall(r"[a-z0-9]+", (book.get("title") or "").lower())
    return f"{book['id']}-" + "-".join(words[:8]) if words else str(book["id"])
def q(text):
    return json.dumps(text or "", ensure_ascii=False)
def q_list(values):
    return json.dumps(values, ensure_ascii=False)
shelves_of = {}
for shelf in library["shelves"]:
    for i in shelf["book_ids"]:
        shelves_of.setdefault(i, []).append(shelf["name"])
os.makedirs(f"{site}/content/books")
for book in library["books"]:
    shelves = shelves_of.get(book["id"], [])
    note = (book.get("note") or {}).get("markdown") or ""
    cover = (book.get("cover") or {}).get("path") or ""
    added = (book.get("created_at") or "")[:10]
    with open(f"{site}/content/books/{slug(book)}.md", "w") as f:
        f.write("---\n")
        f.write(f"title: {q(book.get('title'))}\nauthor: {q(book.get('author'))}\nisbn: {q(book.get('isbn'))}\n")
        f.write(f"shelf: {q(shelves[0] if shelves else '')}\ncover: {q(cover)}\nadded: {q(added)}\n")
        authors = [book["author"]] if book.get("author") else []
        years = [added[:4]] if added else []
        f.write(f"shelves: {q_list(shelves)}\nauthors: {q_list(authors)}\nyears: {q_list(years)}\n")
        f.write("---\n" + note)
open(f"{site}/content/books/_index.md", "w").write("---\ntitle: \"All books\"\n---\n")
open(f"{site}/config.toml", "w").write('''baseURL = "https://books.example.org/"
title = "Library"
disableKinds = ["RSS", "sitemap", "404", "robotsTXT"]
[taxonomies]
shelf = "shelves"
author = "authors"
year = "years"
[outputFormats.MD]
mediaType = "text/markdown"
baseName = "index"
isPlainText = true
[outputs]
page = ["HTML", "MD"]
term = ["HTML", "MD"]
taxonomy = ["HTML", "MD"]
section = ["HTML"]
home = ["HTML"]
[markup.goldmark.renderer]
unsafe = false
''')
os.makedirs(f"{site}/layouts/_default")
def layout(path, text):
    open(f"{site}/layouts/{path}", "w").write(text)
layout("_default/baseof.html", '''<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ block "title" . }}{{ .Site.Title }}{{ end }}</title>
<link rel="stylesheet" href="/assets/style.css"></head>
<body><header class="site-header"><a href="/index.html">{{ .Site.Title }}</a>
<nav><a href="/index.html">Shelves</a> <a href="/books/">All books</a> <a href="/authors/">Authors</a></nav></header>
<main>{{ block "main" . }}{{ end }}</main><footer><p>A snapshot, with Hugo.</p></footer></body></html>
''')
layout("_default/single.html", '''{{ define "title" }}{{ .Title }} · {{ .Site.Title }}{{ end }}
{{ define "main" }}<nav class="breadcrumb"><a href="/index.html">Shelves</a> › {{ .Params.shelf }} › {{ .Title }}</nav>
<article class="book"><div class="book-cover">{{ with .Params.cover }}<img class="cover large" src="/{{ . }}" alt="Cover of {{ $.Title }}">{{ else }}<div class="cover placeholder">{{ .Title }}</div>{{ end }}</div>
<div class="book-details"><h1>{{ .Title }}</h1>{{ with .Params.author }}<p class="book-author">by {{ . }}</p>{{ end }}
<dl class="facts"><dt>ISBN</dt><dd>{{ with .Params.isbn }}{{ . }}{{ else }}—{{ end }}</dd><dt>Shelf</dt><dd>{{ .Params.shelf }}</dd><dt>Added</dt><dd>{{ .Params.added }}</dd></dl></div></article>
<section class="note"><h2>Notes</h2>{{ with .Content }}<div class="note-body">{{ . }}</div>{{ else }}<p class="empty">No notes.</p>{{ end }}</section>{{ end }}
''')
layout("_default/single.md", '''---
title: {{ .Title | jsonify }}
author: {{ .Params.author | jsonify }}
isbn: {{ .Params.isbn | jsonify }}
shelf: {{ .Params.shelf | jsonify }}
---
# {{ .Title }}

{{ .RawContent }}
''')
# A shelf's, an author's or a year's page: the term's own pages, by title.
layout("_default/term.html", '''{{ define "main" }}<h1>{{ .Title }}</h1><ul class="book-list">{{ range .Pages.ByTitle }}<li><a href="{{ .RelPermalink }}">{{ with .Params.cover }}<img class="cover" src="/{{ . }}" loading="lazy" alt="">{{ end }}<span>{{ .Title }}</span> <span>{{ .Params.author }}</span></a></li>{{ end }}</ul>{{ end }}
''')
layout("_default/term.md", '''# {{ .Title }}
{{ range .Pages.ByTitle }}
- [{{ .Title }}]({{ .RelPermalink }}) {{ .Params.author }}{{ end }}
''')
# The authors' (shelves', years') index: each term with its count.
layout("_default/taxonomy.html", '''{{ define "main" }}<h1>{{ .Title }}</h1><ul>{{ range .Data.Terms.Alphabetical }}<li><a href="{{ .Page.RelPermalink }}">{{ .Page.Title }}</a> {{ .Count }}</li>{{ end }}</ul>{{ end }}
''')
layout("_default/taxonomy.md", '''# {{ .Title }}
{{ range .Data.Terms.Alphabetical }}
- [{{ .Page.Title }}]({{ .Page.RelPermalink }}) {{ .Count }}{{ end }}
''')
# The list of all books.
layout("_default/list.html", '''{{ define "main" }}<h1>{{ .Title }}</h1><ul class="book-list">{{ range .Pages.ByTitle }}<li><a href="{{ .RelPermalink }}">{{ with .Params.cover }}<img class="cover" src="/{{ . }}" loading="lazy" alt="">{{ end }}<span>{{ .Title }}</span> <span>{{ .Params.author }}</span></a></li>{{ end }}</ul>{{ end }}
''')
layout("index.html", '''{{ define "main" }}<h1>{{ .Site.Title }}</h1><ul>{{ range .Site.Taxonomies.shelves.Alphabetical }}<li><a href="{{ .Page.RelPermalink }}">{{ .Page.Title }}</a> {{ .Count }}</li>{{ end }}</ul>{{ end }}
''')
print("books", len(library["books"]), "shelves", len(library["shelves"]))
