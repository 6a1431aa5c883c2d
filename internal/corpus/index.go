package corpus

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// DefaultMaxBytes bounds one file or fetched page when IndexOptions.MaxBytes is zero.
const DefaultMaxBytes = 8 << 20

// batchSize is how many writes share a transaction: big enough to be fast, small enough
// that a CLI and the worker sharing the file do not wait long for each other.
const batchSize = 256

// userAgent names the indexer to the servers it fetches from.
const userAgent = "sated-corpus/1 (+https://github.com/sated-dev/sated)"

// IndexOptions tune IndexPaths; the zero value works.
type IndexOptions struct {
	// HTTPClient fetches URL inputs; nil means a client with a 30s timeout.
	HTTPClient *http.Client
	// MaxBytes bounds one input; larger inputs are skipped with a warning.
	MaxBytes int64
	// Warn hears about every input that was skipped and why, and about every indexed
	// directory whose pages were kept because none of its files is left (ErrPlaceEmpty).
	Warn func(path string, err error)
	// Progress hears the count of inputs handled so far.
	Progress func(done int)
}

// IndexStats counts what IndexPaths did with each input document.
type IndexStats struct {
	Added, Updated, Unchanged, Skipped int
	// Removed are the URLs of the pages under an indexed directory whose files are gone from
	// disk: indexing a directory again removes them, as it updates the pages that changed.
	Removed []string
}

// ErrPlaceEmpty marks an indexed directory that holds none of its pages' files any more: its
// pages are kept, not pruned.
var ErrPlaceEmpty = errors.New("none of its indexed files is on disk")

// IndexPaths indexes files, directories (recursively, hidden entries skipped) and http(s)
// URLs. Inputs that cannot be read or parsed are skipped with a warning; only context
// cancellation and database failures stop it.
func (x *Index) IndexPaths(ctx context.Context, inputs []string, opts IndexOptions) (IndexStats, error) {
	ix := indexer{x: x, ctx: ctx, opts: opts}
	if ix.opts.MaxBytes <= 0 {
		ix.opts.MaxBytes = DefaultMaxBytes
	}
	if ix.opts.HTTPClient == nil {
		ix.opts.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	defer ix.rollback()
	for _, in := range inputs {
		var err error
		if u, perr := url.Parse(in); perr == nil && (u.Scheme == "http" || u.Scheme == "https") {
			err = ix.url(in)
		} else {
			err = ix.tree(in)
		}
		if err != nil {
			return ix.stats, err
		}
	}
	if err := ix.commit(); err != nil {
		return ix.stats, fmt.Errorf("corpus %s: %w", x.path, err)
	}
	if err := ix.prune(); err != nil {
		return ix.stats, err
	}
	if err := x.optimize(ctx); err != nil {
		return ix.stats, fmt.Errorf("corpus %s: %w", x.path, err)
	}
	return ix.stats, nil
}

// optimize merges the full-text index's segments into one when it has several. Every batch an
// index run commits adds segments (as does Add or Remove), and a search reads each word's
// postings from every segment: merged, the corpus benchmark's search p50 fell from 5.1-5.3 ms to
// 4.6-4.8 ms (same fresh index, back to back). It rewrites the whole index (about a second for
// 43,000 passages), so it runs at the end of an index run, and only then: an index run that
// changed nothing still merges a corpus indexed before merging was done, or one whose last run
// was stopped before its merge. The text, rowids and generation stay as they are.
func (x *Index) optimize(ctx context.Context) error {
	var segments int
	if err := x.db.QueryRowContext(ctx, `SELECT count(DISTINCT segid) FROM passages_fts_idx`).Scan(&segments); err != nil {
		return err
	}
	if segments <= 1 {
		return nil
	}
	_, err := x.db.ExecContext(ctx, `INSERT INTO passages_fts(passages_fts) VALUES('optimize')`)
	return err
}

// indexer carries one IndexPaths run: its batch transaction and its counts.
type indexer struct {
	x       *Index
	ctx     context.Context
	opts    IndexOptions
	tx      *sql.Tx
	pending int
	changed bool // the open batch added or replaced something
	done    int
	stats   IndexStats
	dirs    []string // the directories walked, resolved
}

// prune removes the pages under the walked directories whose files are gone from disk. A
// directory none of whose pages is on disk any more keeps them, with a warning: an unmounted
// disk or an emptied checkout reads so, and a re-index is no way to lose a whole place (corpus
// remove is).
func (ix *indexer) prune() error {
	var urls []string
	for _, dir := range ix.dirs {
		g, all, err := ix.x.gone(ix.ctx, dir)
		if err != nil {
			return err
		}
		if len(g) > 0 && len(g) == all {
			if ix.opts.Warn != nil {
				ix.opts.Warn(dir, fmt.Errorf("%w: its %s kept, not pruned", ErrPlaceEmpty, pagesAre(all)))
			}
			continue
		}
		urls = append(urls, g...)
	}
	if _, err := ix.x.removePages(ix.ctx, urls); err != nil { // IndexPaths merges after
		return err
	}
	ix.stats.Removed = urls
	return nil
}

// pagesAre is "1 page is" or "n pages are".
func pagesAre(n int) string {
	if n == 1 {
		return "1 page is"
	}
	return fmt.Sprintf("%d pages are", n)
}

// tree indexes a file or walks a directory.
func (ix *indexer) tree(root string) error {
	abs, err := filepath.Abs(root)
	if err == nil {
		// a symlinked root (Debian's /usr/share/doc/python3.11-doc/html) is walked as the
		// directory it names; WalkDir itself follows no links
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		ix.skip(root, err)
		return nil
	}
	if info, err := os.Stat(abs); err == nil && info.IsDir() {
		ix.dirs = append(ix.dirs, abs)
	}
	return filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if cerr := ix.ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			ix.skip(p, err)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p != abs && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != abs && sphinxCopies[d.Name()] {
				ix.skip(p, errors.New("Sphinx build copies (sources of the HTML pages, static assets): not indexed"))
				return fs.SkipDir
			}
			return nil
		}
		return ix.file(p)
	})
}

// file indexes one local file, following a symlink only to a regular file.
func (ix *indexer) file(p string) error {
	info, err := os.Stat(p)
	if err != nil {
		ix.skip(p, err)
		return nil
	}
	if !info.Mode().IsRegular() {
		return nil
	}
	name := filepath.Base(p)
	if why := notDocumentName(name); why != "" {
		ix.skip(p, errors.New(why))
		return nil
	}
	if html := renderedBeside(p); html != "" {
		ix.skip(p, SourceOfIndexed{HTML: filepath.Base(html)})
		return nil
	}
	if info.Size() > ix.opts.MaxBytes {
		ix.skip(p, fmt.Errorf("%d bytes is over the %d-byte limit", info.Size(), ix.opts.MaxBytes))
		return nil
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		ix.skip(p, err)
		return nil
	}
	if why := notDocument(name, raw); why != "" {
		ix.skip(p, errors.New(why))
		return nil
	}
	format := formatOf(name)
	e, err := extract(raw, format, name)
	if err != nil {
		ix.skip(p, err)
		return nil
	}
	return ix.store(page{Document: Document{URL: fileURL(p), Title: e.title, Body: e.body, Format: format}, sections: e.sections, links: e.links})
}

// url fetches and indexes one page.
func (ix *indexer) url(raw string) error {
	d, err := ix.fetch(raw)
	if err != nil {
		if cerr := ix.ctx.Err(); cerr != nil {
			return cerr
		}
		ix.skip(raw, err)
		return nil
	}
	return ix.store(d)
}

func (ix *indexer) fetch(raw string) (page, error) {
	req, err := http.NewRequestWithContext(ix.ctx, http.MethodGet, raw, nil)
	if err != nil {
		return page{}, err
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/html, text/markdown, text/plain;q=0.9")
	resp, err := ix.opts.HTTPClient.Do(req)
	if err != nil {
		return page{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return page{}, fmt.Errorf("HTTP %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, ix.opts.MaxBytes+1))
	if err != nil {
		return page{}, err
	}
	if int64(len(body)) > ix.opts.MaxBytes {
		return page{}, fmt.Errorf("over the %d-byte limit", ix.opts.MaxBytes)
	}
	name := path.Base(req.URL.Path)
	if name == "/" || name == "." {
		name = req.URL.Host
	}
	format := formatOf(req.URL.Path)
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		format = FormatHTML
	case mt == "text/markdown" || mt == "text/x-markdown":
		format = FormatMarkdown
	case mt == "text/plain":
		format = FormatText
	case mt == "text/css" || mt == "text/javascript" || (mt != "" && !strings.HasPrefix(mt, "text/")):
		return page{}, fmt.Errorf("unsupported content type %q", mt)
	}
	if why := notDocument(name, body); why != "" {
		return page{}, errors.New(why)
	}
	e, err := extract(body, format, name)
	if err != nil {
		return page{}, err
	}
	return page{Document: Document{URL: raw, Title: e.title, Body: e.body, Format: format}, sections: e.sections, links: e.links}, nil
}

// store writes one document inside the current batch.
func (ix *indexer) store(d page) error {
	if ix.tx == nil {
		tx, err := ix.x.db.BeginTx(ix.ctx, nil)
		if err != nil {
			return fmt.Errorf("corpus %s: %w", ix.x.path, err)
		}
		ix.tx = tx
	}
	c, err := upsert(ix.ctx, ix.tx, d)
	if err != nil {
		return fmt.Errorf("corpus %s: store %s: %w", ix.x.path, d.URL, err)
	}
	if c != unchanged {
		ix.changed = true
	}
	switch c {
	case added:
		ix.stats.Added++
	case updated:
		ix.stats.Updated++
	case unchanged:
		ix.stats.Unchanged++
	}
	ix.progress()
	if ix.pending++; ix.pending >= batchSize {
		if err := ix.commit(); err != nil {
			return fmt.Errorf("corpus %s: %w", ix.x.path, err)
		}
	}
	return nil
}

// SourceOfIndexed is why a text file is not indexed: an HTML page of the same name beside it is
// its rendering (git-doc's git-add.txt beside git-add.html), and the page is indexed instead.
type SourceOfIndexed struct{ HTML string }

func (e SourceOfIndexed) Error() string { return "the source of " + e.HTML + ", which is indexed" }

// SkipGroup is the reason said once for many files skipped for it: the 203 text sources in
// git-doc's top directory are one warning line, not 203.
func (e SourceOfIndexed) SkipGroup() string {
	return "the sources of the HTML pages of the same names beside them, which are indexed"
}

func (ix *indexer) skip(p string, err error) {
	ix.stats.Skipped++
	if ix.opts.Warn != nil {
		ix.opts.Warn(p, err)
	}
	ix.progress()
}

func (ix *indexer) progress() {
	ix.done++
	if ix.opts.Progress != nil {
		ix.opts.Progress(ix.done)
	}
}

func (ix *indexer) commit() error {
	if ix.tx == nil {
		return nil
	}
	if ix.changed {
		if err := bumpVersion(ix.ctx, ix.tx); err != nil {
			return err
		}
	}
	err := ix.tx.Commit()
	ix.tx, ix.pending, ix.changed = nil, 0, false
	return err
}

func (ix *indexer) rollback() {
	if ix.tx != nil {
		ix.tx.Rollback()
		ix.tx = nil
	}
}

// sphinxCopies are the directories a Sphinx HTML build adds beside its pages: the reST
// sources of the same pages, and static assets.
var sphinxCopies = map[string]bool{"_sources": true, "_static": true}

// nonDocuments are extensions of files that hold no reading text: styles, scripts, images,
// fonts, media, archives, binaries, source maps and lock files.
var nonDocuments = func() map[string]bool {
	m := map[string]bool{}
	for _, e := range strings.Fields(`.css .scss .sass .less .js .mjs .cjs .jsx .ts .tsx .map .wasm
		.svg .svgz .png .jpg .jpeg .gif .webp .avif .bmp .ico .icns .tif .tiff .psd .xcf .eps
		.woff .woff2 .ttf .otf .eot .pfb .afm
		.mp3 .mp4 .m4a .ogg .oga .ogv .wav .flac .webm .avi .mov .mkv
		.zip .gz .tgz .bz2 .xz .zst .7z .rar .tar .jar .deb .rpm .iso .dmg
		.pdf .exe .dll .so .dylib .a .o .obj .class .pyc .pyo .db .sqlite .sqlite3
		.lock .sum .min`) {
		m[e] = true
	}
	return m
}()

// notDocumentName says why a file name is not a document, or "".
// renderedBeside returns the HTML page rendered from the text or Markdown file p when it lies
// beside it under the same name (git-doc ships git-reset.txt, the AsciiDoc source, beside
// git-reset.html): indexing both would return every passage twice. "" when there is none.
func renderedBeside(p string) string {
	if formatOf(p) == FormatHTML {
		return ""
	}
	base := strings.TrimSuffix(p, filepath.Ext(p))
	for _, ext := range []string{".html", ".htm"} {
		if info, err := os.Stat(base + ext); err == nil && info.Mode().IsRegular() {
			return base + ext
		}
	}
	return ""
}

func notDocumentName(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if nonDocuments[ext] || strings.HasSuffix(strings.ToLower(name), ".min.js") {
		return fmt.Sprintf("not a document (%s file)", ext)
	}
	return ""
}

// notDocument says why name with content raw is not a document, or "": by extension, then
// by sniffed content type (images, fonts, archives, PDFs and other binaries whatever their
// names; scripts and stylesheets the sniffer reads as text).
func notDocument(name string, raw []byte) string {
	if why := notDocumentName(name); why != "" {
		return why
	}
	ct := http.DetectContentType(raw)
	mt, _, _ := mime.ParseMediaType(ct)
	head := strings.ToLower(string(raw[:min(len(raw), 512)]))
	switch {
	case strings.Contains(head, "<svg") && !strings.Contains(head, "<html"):
		return "not a document (SVG image)"
	case strings.HasPrefix(mt, "text/"), mt == "application/json", mt == "application/xml":
		return ""
	case mt == "application/octet-stream":
		return "" // unknown: extract decides (binary input fails its UTF-8 check)
	}
	return fmt.Sprintf("not a document (%s content)", mt)
}
