import json
W = lambda inner: '<div class="trix-content">\n  <div>' + inner + '</div>\n</div>\n'
shelves = [
  {"id": 1, "name": "Currently Reading 📖"},
  {"id": 2, "name": "Classics"},
  {"id": 3, "name": "To Read"},
  {"id": 4, "name": "Favourites ★"},
  {"id": 5, "name": "🤷‍♂️"},
  {"id": 6, "name": "Abandoned"},
]
def d(day): return f"2024-{day}T09:30:00.000Z"
books = []
def add(id, title, author, isbn, shelf, created, comments, cover):
    books.append({"id": id, "title": title, "author": author, "isbn": isbn, "shelf_id": shelf,
                  "created_at": created, "updated_at": created.replace("09:30", "18:05"),
                  "comments": comments, "cover": cover})
disk = lambda f: {"kind": "disk", "file": f}
obj = lambda f: {"kind": "object-storage", "file": f}
add(101, "Pride and Prejudice", "Jane Austen", "9780141439518", 1, d("01-03"),
    W("Loved it.<br><br>Read again in 2024."), disk("pride-and-prejudice.jpg"))
add(102, "Moby-Dick; or, The Whale", "Herman Melville", "9780142437247", 1, d("01-17"),
    W("Chapter 42, <em>The Whiteness of the Whale</em>, is the one to reread.<br>Ishmael’s voice carries the whole thing.<br><br><br>"), obj("moby-dick.png"))
add(103, "Frankenstein; or, The Modern Prometheus", "Mary Shelley", "9780486282114", 1, d("02-02"),
    W("Annotated edition notes: <a href=\"https://www.gutenberg.org/ebooks/84?format=html&amp;lang=en\">Project Gutenberg text</a> &amp; the 1818 vs 1831 differences.<br><br>Compare with <a href=\"https://en.wikipedia.org/wiki/Frankenstein#Publication\">the publication history</a>."), disk("frankenstein.gif"))
add(104, "Dracula", "Bram Stoker", "9780486411095", 2, d("02-14"),
    W("Favourite line:<br><br></div><blockquote>“<em>We learn from failure, not from success!</em>”</blockquote><div>Epistolary form works better than I remembered."), obj("dracula.webp"))
add(105, "Middlemarch", "George Eliot", "9780141439549", 2, d("03-01"),
    W("<strong>Themes</strong><br></div><ul><li>Marriage and vocation</li><li>Reform &amp; the <em>1832</em> Act</li><li>Dorothea vs. Casaubon</li></ul><div>Slow start, worth it."), disk("middlemarch.jpg"))
add(106, "Jane Eyre", "Charlotte Brontë", "9780141441146", 4, d("03-09"),
    W("Reader, I married him."), disk("jane-eyre.png"))
add(107, "Wuthering Heights", "Emily Brontë", "9780141439556", 4, d("03-21"),
    '<div class="trix-content">\n  \n</div>\n', disk("wuthering-heights.jpg"))
add(108, "Great Expectations", "Charles Dickens", "978-0-14-143956-3", 2, d("04-04"),
    W("Quote from the opening, kept as typed:<br></div><pre>My father's family name being Pirrip, and my Christian name Philip,\nmy infant tongue could make of both names nothing longer or more explicit than Pip.</pre><div>Pip &lt;3 Estella? Not quite."), disk("great-expectations.webp"))
add(109, "War and Peace", "Leo Tolstoy", "9781400079988", 3, d("04-20"),
    W("Character list for the first 300 pages:<br></div><ol><li>Pierre Bezukhov</li><li>Prince Andrei Bolkonsky</li><li>Natasha Rostova</li></ol><div>"), disk("war-and-peace.gif"))
add(110, "The Odyssey", "Homer", "9780140268867", 3, d("05-02"),
    W("<del>Fagles</del> Wilson translation this time. Compare the first lines:<br></div><blockquote>Tell me about a complicated man.</blockquote><div>"), disk("the-odyssey.png"))
add(111, "Don Quixote", "Miguel de Cervantes", "9780060934347", 3, d("05-19"),
    "", disk("don-quixote.jpg"))
add(112, "Alice's Adventures in Wonderland", "Lewis Carroll", "9780141439761", 4, d("06-01"),
    W("“Curiouser and curiouser!”<br>Read aloud with the kids — chapters 1–3 so far."), disk("alice.png"))
add(113, "The Time Machine", "H. G. Wells", "9780451528551", 5, d("06-15"),
    '<div class="trix-content">\n  <div class="trix-content">\n  <div>Doubly wrapped by an old import: still <strong>just one note</strong>.<br><br>The Eloi &amp; the Morlocks.</div>\n</div>\n</div>\n', obj("time-machine.webp"))
add(114, "Little Women", "Louisa May Alcott", "9780147514011", 5, d("07-04"),
    W("<h1>Reading group</h1>Meets on Thursdays.<br>Bring the Penguin edition&nbsp;(p. 112)."), disk("little-women.jpg"))
add(115, "Walden", "Henry David Thoreau", None, 3, d("07-21"),
    W("I went to the woods because I wished to live deliberately…"), disk("walden.gif"))
add(116, "On the Origin of Species", "Charles Darwin", "", 3, d("08-08"),
    W("Skimmed. See <a href=\"http://darwin-online.org.uk/\">darwin-online.org.uk</a> for the variorum."), disk("origin-of-species.png"))
add(117, "Die Verwandlung", "Franz Kafka", "9783150000090", 1, d("08-30"),
    W("Gregor Samsa – „ungeheueres Ungeziefer“. Read it in German this time."), disk("metamorphosis.jpg"))
add(118, "The Tale of Genji", "Murasaki Shikibu", "9780142437148", 3, d("09-09"),
    W("源氏物語 — Royall Tyler's translation. 54 chapters; at chapter 12 (Suma)."), obj("tale-of-genji.webp"))
add(119, "The Scarlet Letter", None, "9780142437261", 2, d("09-23"),
    W("Author missing in my import — it is Hawthorne."), disk("scarlet-letter.jpg"))
add(120, "Adventures of Huckleberry Finn", "Mark Twain", "9780142437179", 2, d("10-01"),
    W("Second read.<br>Notes on dialect:<br></div><ul><li>the introductory note lists <em>seven</em> dialects</li><li>see <a href=\"https://www.marktwainproject.org/\">the Mark Twain Project</a></li></ul><div><br><br>"), disk("huckleberry-finn.png"))
add(121, "The Adventures of Sherlock Holmes", "Arthur Conan Doyle", "0140439072", 4, d("10-10"),
    W("Order to reread: <strong>A Scandal in Bohemia</strong>, <em>The Red-Headed League</em>, The Speckled Band."), disk("sherlock-holmes.jpg"))
add(122, "The Iliad", "Homer", "9780140275360", 2, d("10-28"),
    W("Same cover scan as my old copy."), disk("iliad.jpg"))
add(123, "The Iliad (Lattimore translation)", "Homer", "9780226470498", 3, d("11-02"),
    W("Identical cover image to the other edition: stored once."), disk("iliad.jpg"))
add(124, "Leaves of Grass", "Walt Whitman", "9780140421996", 3, d("11-11"),
    W("No cover yet."), None)
add(125, "A Tale of Two Cities", "Charles Dickens", "9780141439600", 2, d("11-20"),
    W("The cover came from an ISBN search; that site is gone now."), {"kind": "third-party-gone"})
add(126, "The Call of the Wild", "Jack London", "9780486264721", 3, d("12-01"),
    W("Cover link from a search page that answers with HTML, not an image."), {"kind": "third-party-not-image"})
add(127, "Emma", "Jane Austen", "9780141439587", 5, d("12-05"),
    W("The cover file was deleted from storage."), {"kind": "missing"})
add(128, "Persuasion", "Jane Austen", "9780141439686", 9, d("12-09"),
    W("Was on my “Book club 2023” shelf, which I deleted.<br><br>Still my favourite Austen."), disk("persuasion.jpg"))
add(129, "Northanger Abbey", "Jane Austen", 9780141439792, 9, d("12-12"),
    "", None)
add(130, "The Picture of Dorian Gray", "Oscar Wilde", "9780141439570", 1, d("12-20"),
    "Plain-text note from an old import: *not* Markdown.\nSecond line & an ampersand <3.\n\n# not a heading", disk("dorian-gray.gif"))
# Spread over the years, for the stats page; the first and the newest book stay in 2024.
for b in books:
    if b["id"] not in (101, 130):
        y = 2019 + b["id"] % 5
        b["created_at"] = str(y) + b["created_at"][4:]
        b["updated_at"] = str(y) + b["updated_at"][4:]
lib = {"user": {"id": 1, "email": "demo@reader.example", "password": "demo-password"},
       "shelves": shelves, "books": books}
json.dump(lib, open("Sources/SampleServer/Library/sample-library.json", "w"), ensure_ascii=False, indent=1)
print(len(books))
