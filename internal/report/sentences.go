package report

import (
	"hash/maphash"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/sated-dev/sated/internal/extract"
	"github.com/sated-dev/sated/internal/text"
)

// parsed is a sentence of a source's text as the answer reads it whatever the question: what
// answerCandidates would quote, before the question's choices (boilerplate the question asks
// about, repeats of other sources, the question's qualified names written bare).
type parsed struct {
	idx, sec int
	heading  string
	text     string
	key      string     // the sentence regardless of case and punctuation, to quote it once
	keyHash  uint64     // key's hash (keyHashOf)
	terms    []string   // text.Terms: the candidate's terms when the question names no alias
	ids      termIDs    // terms' lexicon numbers
	quality  float64    // sentenceQuality with terms
	block    bool       // captionOnly
	pairs    [][2]int32 // adjacentPairs, by the lexicon's numbers
	boiler   uint32     // the boilerplate phrases it holds, one bit each
	// lines are the sentence as its passage lays it out, when it is program text or a
	// configuration sample whose lines the findings show as a code block: a sample's lines, or a
	// line of code of several, with their indentation
	lines []string
	// layout is the sentence as its passage lays it out when it is a whole line of a block of
	// several and ends no sentence (an interpreter's output, "[('dave', 'B', 10), ...]"): shown
	// in a code block when it follows program text
	layout string
	// after and line: the block's lines after the sentence's line that no quotable sentence
	// holds (layout.linesAfter), and the line's index in the section (-1: not laid out)
	after []string
	line  int
	// items are the list items after the sentence, a caption, too short to quote alone ("- SQL
	// dump"): shown under it
	items []string
	// code is the short program text after the sentence, an example's caption, too short to
	// quote alone ("SELECT date();" after "Compute the current date."): shown under it in a code
	// block; carried counts the sentences items and code take, which follows() steps over
	code    []string
	carried int
	// para numbers the block of its section the sentence sits in (text.SentenceBlocks): a list
	// item's sentences share one, the paragraph after the list has another
	para int
}

// parsedCache remembers each source text's parsed sentences for the process: the answer gate
// writes the findings again every round from every passage accepted so far, and the synthesis
// once more, so each passage is split, stemmed and weighed once. A pure function's memo: the
// findings are the same with or without it.
var parsedCache = struct {
	sync.Mutex
	texts map[parsedKey]parsedText
}{texts: map[parsedKey]parsedText{}}

// parsedText is one source text as the answer reads it: its quotable sentences, and every term
// of the whole text (text.Terms) by the lexicon's numbers, each once and sorted, for asking
// whether the text uses a word anywhere (a heading, a question, a sentence too long to quote).
type parsedText struct {
	sents []parsed
	terms []int32
}

// uses reports whether the text holds the term of lexicon number g.
func (p parsedText) uses(g int32) bool {
	_, ok := slices.BinarySearch(p.terms, g)
	return ok
}

type parsedKey struct {
	text      string
	extracted bool
}

// maxParsedTexts bounds the cache; when full it starts over. A run's evidence is a few dozen
// to a few hundred passages, so this holds 50 concurrent runs' evidence; a parsed 1,500-character
// passage of the Go spec weighs about 6 KB with its sentences' term numbers (7.7 KB with the term
// maps they replaced, measured the same way), so the cache, the texts it is keyed by included,
// stays under about 30 MB.
const maxParsedTexts = 4096

// parseSource is body's quotable sentences (extracted: a corpus passage, cut at its inner
// headings) and its terms, cached by text.
func parseSource(body string, extracted bool) parsedText {
	key := parsedKey{body, extracted}
	parsedCache.Lock()
	got, ok := parsedCache.texts[key]
	parsedCache.Unlock()
	if ok {
		return got
	}
	words := text.Content(body)
	for i, w := range words {
		words[i] = text.StemCached(w)
	}
	out := parsedText{sents: splitParsed(body, extracted), terms: sortedSet(intern(words))}
	parsedCache.Lock()
	defer parsedCache.Unlock()
	if len(parsedCache.texts) >= maxParsedTexts {
		parsedCache.texts = map[parsedKey]parsedText{}
	}
	parsedCache.texts[key] = out
	return out
}

// splitParsed splits body into sentences, dropping those no question quotes: too short or
// too long, questions themselves, site navigation, table-of-contents entries.
func splitParsed(body string, extracted bool) []parsed {
	secs := []section{{text: body}}
	switch {
	case extracted:
		secs = extractedSections(body)
	case looksMarkdown(body):
		secs[0].text = extract.PlainText(dropHeadingLines(body))
	}
	var out []parsed
	k := -1
	for si, sec := range secs {
		body := stripFootnotes(sec.text)
		var samples map[string][]string
		var statements map[string]bool
		if extracted {
			body, samples = joinSamples(body)
			body, samples = joinPrograms(body, samples)
			body, samples, statements = joinStatements(body, samples)
		}
		var callouts []callout // a callout list's items, each with its program line
		if extracted && strings.Contains(body, "<1>") {
			callouts = calloutLines(body)
		}
		var laid *layout // the section's lines, when a sentence asks
		layoutOf := func() *layout {
			if laid == nil {
				laid = newLayout(body)
			}
			return laid
		}
		first := len(out)
		sents, paras := text.SentenceBlocks(body)
		caption := -1 // the quotable caption (ending in a colon) the list items being read follow
		example := -1 // the quotable prose sentence right before the short code being read
		for n, sent := range sents {
			k++
			sent = trimSentence(sent)
			// a list item is measured without its marker: "- File system level backup" is no finding
			marker := reListMarker.FindString(sent)
			short := len(sent)-len(marker) < minQuoteChars
			if short && caption >= 0 && marker != "" && len(out[caption].items) < maxListTail {
				// but it is shown under the caption that introduces its list ("...approaches to
				// backing up PostgreSQL data:" with "SQL dump", "File system level backup")
				out[caption].items = append(out[caption].items, sent)
				out[caption].carried++
				example = -1 // program text after the list is not the caption's example
				continue
			}
			caption = -1
			if e := example; short && e >= 0 && marker == "" && paras[n] != out[e].para &&
				len(out[e].code) < maxListTail && isShortCode(sent, samples) && endsShortCode(layoutOf(), sents, n, samples) {
				// and short program text is shown under the sentence before it, an example's
				// caption ("Compute the current date." with "SELECT date();"), as one block
				if lines := samples[sent]; lines != nil {
					out[e].code = append(out[e].code, lines...)
				} else {
					out[e].code = append(out[e].code, sent)
				}
				out[e].carried++
				continue
			}
			example = -1
			if short || len(sent) > maxQuoteChars || strings.HasSuffix(sent, "?") ||
				isNavigation(sent) || isTOCEntry(sent) {
				continue
			}
			if strings.HasSuffix(sent, ":") {
				caption = len(out)
			}
			// one pass over the words: the key (the sentence regardless of case and punctuation,
			// to quote it once), the terms and their adjacent pairs
			words := text.Words(sent)
			key := strings.Join(words, " ")
			terms, pairs := termsAndPairs(words)
			terms = slices.Clip(terms)
			p := parsed{idx: k, sec: si, heading: sec.heading, text: sent, key: key, keyHash: keyHashOf(key),
				terms: terms, ids: newTermIDs(terms), quality: sentenceQuality(sent, terms), block: captionOnly(extracted, body, sent) || statements[sent],
				pairs: internPairs(pairs), boiler: boilerplateBits(sent), lines: samples[sent], line: -1, para: paras[n]}
			if marker != "" && callouts != nil {
				if line := calloutOf(callouts, sent[len(marker):]); line != "" {
					p.code = []string{line}
				}
			}
			if code := looksLikeCode(sent) || isShellLine(sent); p.lines == nil && extracted && (code || !endsSentence(sent)) {
				if raw, i := layoutOf().lineOf(sent, !code); i >= 0 && code {
					p.lines, p.line = []string{raw}, i
				} else if i >= 0 {
					p.layout, p.line = raw, i
				}
			}
			out = append(out, p)
			if extracted && p.lines == nil && p.layout == "" && marker == "" && isProse(sent) {
				example = len(out) - 1
			}
		}
		if laid != nil {
			// a laid-out line shows the block's lines after it that no sentence quotes
			quotable := map[string]bool{}
			var prose []string
			for _, p := range out[first:] {
				quotable[p.text] = true
				if p.line < 0 && p.lines == nil {
					prose = append(prose, p.text)
				}
			}
			for k := first; k < len(out); k++ {
				if out[k].line >= 0 {
					out[k].after = laid.linesAfter(out[k].line, quotable, prose)
				}
			}
		}
	}
	return out
}

// keySeed makes keyHashOf the same function for the process.
var keySeed = maphash.MakeSeed()

// keyHashOf hashes a sentence's key, so that an answer tells repeats by number first.
func keyHashOf(key string) uint64 { return maphash.String(keySeed, key) }

// quotedKeys is the keys of the sentences an answer has taken, by their hashes, and by the key
// itself for a key whose hash another key took first.
type quotedKeys struct {
	byHash map[uint64]string
	clash  map[string]bool
}

func (q *quotedKeys) has(hash uint64, key string) bool {
	k, ok := q.byHash[hash]
	return ok && (k == key || q.clash[key])
}

func (q *quotedKeys) add(hash uint64, key string) {
	if k, ok := q.byHash[hash]; !ok {
		q.byHash[hash] = key
	} else if k != key {
		if q.clash == nil {
			q.clash = map[string]bool{}
		}
		q.clash[key] = true
	}
}

// termIDs is a sentence's terms by the lexicon's numbers.
type termIDs struct {
	all      []int32 // every term, in order
	distinct []int32 // each term once, first seen first
	set      []int32 // each term once, sorted: what repeats and matches are judged by
}

func newTermIDs(terms []string) termIDs {
	all := intern(terms)
	return termIDs{all: all, distinct: distinctIDs(all), set: sortedSet(all)}
}

// internPairs is pairs of terms by the lexicon's numbers.
func internPairs(pairs [][2]string) [][2]int32 {
	if len(pairs) == 0 {
		return nil
	}
	flat := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		flat = append(flat, p[0], p[1])
	}
	ids := intern(flat)
	out := make([][2]int32, len(pairs))
	for i := range out {
		out[i] = [2]int32{ids[2*i], ids[2*i+1]}
	}
	return out
}

// appendSample appends a sample's or a program's lines (block) to out as one line, and to
// samples the lines as the passage lays them out under that line.
func appendSample(out []string, samples map[string][]string, block []string) ([]string, map[string][]string) {
	var run, laid []string
	for _, l := range block {
		if t := strings.TrimSpace(l); t != "" {
			run = append(run, t)
		}
		laid = append(laid, strings.TrimRight(l, " \t"))
	}
	one := strings.Join(run, " ")
	if samples == nil {
		samples = map[string][]string{}
	}
	samples[oneLine(one)] = laid // as the sentence splitter folds it: "ConstDecl = ..." of "ConstDecl      = ..."
	return append(out, one), samples
}

// joinPrograms writes each program of body on one line, as joinSamples does a configuration
// sample, so that the answer quotes it whole or not at all, and adds its lines as the passage
// lays them out to samples. A program is a block of lines (no blank line between them) one of
// which is indented under the block's first ("async def main():" and the body under it), with
// the blocks after it whose first line is indented too (a method after a blank line in its
// class). Sentence by sentence, a program's lines ran on into one another ("async with
// asyncio.timeout_at(deadline): await long_running_task() except TimeoutError: print(...)"),
// and its first lines, too short to quote, were lost. A list item's indented continuation is
// no program.
func joinPrograms(body string, samples map[string][]string) (string, map[string][]string) {
	if !strings.Contains(body, "\n ") && !strings.Contains(body, "\n\t") {
		return body, samples // no line is indented: nothing to join (most passages)
	}
	indented := func(l string) bool { return l != "" && (l[0] == ' ' || l[0] == '\t') }
	lines := strings.Split(body, "\n")
	out := make([]string, 0, len(lines))
	for i := 0; i < len(lines); {
		// the block from line i, and whether a line after its first is indented
		end := blockEnd(lines, i)
		nested := slices.ContainsFunc(lines[min(i+1, end):end], indented)
		first := strings.TrimSpace(lines[i])
		if !nested || indented(lines[i]) || reListMarker.MatchString(first) || isProse(first) && endsSentence(first) {
			out = append(out, lines[i:max(end, i+1)]...)
			i = max(end, i+1)
			continue
		}
		// the blocks after it that open indented go on the program
		for {
			next := end
			for next < len(lines) && strings.TrimSpace(lines[next]) == "" {
				next++
			}
			if next == end || next >= len(lines) || !indented(lines[next]) {
				break
			}
			end = blockEnd(lines, next)
		}
		out, samples = appendSample(out, samples, lines[i:end])
		i = end
	}
	return strings.Join(out, "\n"), samples
}

// joinStatements writes each block of program text that joinPrograms leaves (none of its
// lines indented under its first) on one line, as joinPrograms does a program, and adds its
// lines as the passage lays them out to samples: a block of two lines or more, no blank line
// between them, whose first line is program text (looksLikeCode, a trailing comment aside:
// "SELECT unixepoch(); -- now"), none of whose lines is prose that ends a sentence ("The
// sqlite3_reset() function is called to reset a prepared statement."), and which on one line
// is one sentence to the sentence splitter (a grammar's productions, each ending in " .", would
// be split apart again) and short enough to quote.
// Line by line, a block's statements were quoted apart ("BEGIN;" and "COMMIT;" lost around
// "INSERT INTO t1 SELECT b,a,c FROM t2;"), and lines too short to quote ("SELECT
// unixepoch();") were lost. A list, an interpreter's session (its prompts and outputs) and a
// sample joined already stay as they are; a longer block stays a line a sentence, as before.
// joined marks the lines written, which like the lines they join are quoted only after what
// introduces them (captionOnly).
func joinStatements(body string, samples map[string][]string) (_ string, _ map[string][]string, joined map[string]bool) {
	if !strings.ContainsAny(body, ";{}=") && !strings.Contains(body, "()") {
		return body, samples, nil // no line looks like code: nothing to join (most passages)
	}
	lines := strings.Split(body, "\n")
	out := make([]string, 0, len(lines))
	for i := 0; i < len(lines); {
		end := blockEnd(lines, i)
		// the cheap tests first: most blocks are a paragraph of prose, a line of its own
		if end-i < 2 || !looksLikeCode(codePart(strings.TrimSpace(lines[i]))) || slices.ContainsFunc(lines[i:end], func(l string) bool {
			t := strings.TrimSpace(l)
			c := codePart(t)
			return samples[oneLine(t)] != nil || reListMarker.MatchString(t) || rePrompt.MatchString(t) || isProse(c) && endsSentence(c)
		}) || notOneQuote(oneLine(strings.Join(lines[i:end], " "))) {
			out = append(out, lines[i:max(end, i+1)]...)
			i = max(end, i+1)
			continue
		}
		out, samples = appendSample(out, samples, lines[i:end])
		if joined == nil {
			joined = map[string]bool{}
		}
		joined[oneLine(out[len(out)-1])] = true
		i = end
	}
	return strings.Join(out, "\n"), samples, joined
}

// notOneQuote reports a block written on one line that no sentence quotes whole: too long to
// quote, or split again by the sentence splitter.
func notOneQuote(one string) bool { return len(one) > maxQuoteChars || len(text.Sentences(one)) != 1 }

// codePart is a line of program text without its trailing comment ("SELECT date(); -- today"
// is "SELECT date();"), when the text before the comment is program text; else the line.
func codePart(l string) string {
	for _, mark := range []string{" -- ", " # ", " // "} {
		if i := strings.Index(l, mark); i > 0 && looksLikeCode(l[:i]) {
			return strings.TrimSpace(l[:i])
		}
	}
	return l
}

// joinSamples writes each configuration sample of body on one line, so that the answer quotes
// it whole or not at all. A sample is a run of two or more laid-out lines (laidOutLine), one of
// them a tag ("<VirtualHost *:80>", "</Directory>"); blank lines, comments and code inside an
// open tag are part of it. Line by line, a sample lost the lines that repeat another sample's ("ServerName
// www.example.com") or are too short to quote ("</VirtualHost>"), and its other lines read as
// a configuration it does not give. samples maps each joined line to the sample's lines as the
// passage lays them out, indented as there, for the findings to show as a code block.
func joinSamples(body string) (joined string, samples map[string][]string) {
	if !strings.Contains(body, ">\n") && !strings.HasSuffix(body, ">") {
		return body, nil // no line ends in a tag: nothing to join (most passages)
	}
	lines := strings.Split(body, "\n")
	out := make([]string, 0, len(lines))
	for i := 0; i < len(lines); {
		// the run from line i: its last laid-out line, how many it has, whether one is a tag
		last, n, depth, tagged := i, 0, 0, false
		for j := i; j < len(lines); j++ {
			l := strings.TrimSpace(lines[j])
			if depth > 0 && (l == "" || strings.HasPrefix(l, "#") || text.IsCode(l) || looksLikeCode(l)) {
				// inside an open tag a blank line, a comment ("# Other directives here") or
				// a line of code is the sample's
				if l != "" {
					last = j
				}
				continue
			}
			if !laidOutLine(l) {
				break
			}
			if strings.HasPrefix(l, "<") && strings.HasSuffix(l, ">") {
				tagged = true
				switch {
				case strings.HasPrefix(l, "</"):
					depth = max(0, depth-1)
				case !strings.HasSuffix(l, "/>"):
					depth++
				}
			}
			last, n = j, n+1
		}
		if n < 2 || !tagged {
			out = append(out, lines[i:max(last, i)+1]...)
			i = max(last, i) + 1
			continue
		}
		out, samples = appendSample(out, samples, lines[i:last+1])
		i = last + 1
	}
	return strings.Join(out, "\n"), samples
}

// laidOutLine reports a line set out rather than written that is not code (code is quoted
// after its caption, line by line): it ends no sentence, introduces nothing, is no list item,
// and holds at most one small word ("DocumentRoot \"/www/example1\"", "Require all denied").
func laidOutLine(l string) bool {
	l = strings.TrimSpace(l)
	if l == "" || endsSentence(l) || strings.HasSuffix(l, ":") || strings.HasSuffix(l, ",") || reListMarker.MatchString(l) ||
		text.IsCode(l) || looksLikeCode(l) {
		return false
	}
	return smallWords(l) < 2
}

// endsShortCode reports whether the program text sents[n] ends its block as the section lays
// it out (laid), or the next sentence is short program text too: an example's caption carries
// its program text whole, never its first lines ("var c = make(chan int)" of a program after an
// explanation of the one before).
func endsShortCode(laid *layout, sents []string, n int, samples map[string][]string) bool {
	_, i := laid.lineOf(sents[n], false)
	if i < 0 {
		return false
	}
	if i+1 >= len(laid.lines) || strings.TrimSpace(laid.lines[i+1]) == "" {
		return true
	}
	if n+1 >= len(sents) {
		return false
	}
	next := trimSentence(sents[n+1])
	return len(next) < minQuoteChars && isShortCode(next, samples)
}

// trimSentence is a sentence as splitParsed reads it: without the white space and the
// ellipsis (markContinuations') around it.
func trimSentence(s string) string { return strings.TrimSpace(strings.TrimRight(s, " …")) }

// blockEnd is the index of the line after the block of non-blank lines from lines[i].
func blockEnd(lines []string, i int) int {
	for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
		i++
	}
	return i
}

// isShortCode reports program text that an example's caption may carry: a sample or program
// written on one line (joinSamples, joinPrograms, joinStatements), a command at a shell prompt,
// or a statement of code (looksLikeCode, and ending in ";" or assigning: "SELECT date();",
// "x = 1"). A name alone ("row_number()", a term its definition follows) is no example of the
// sentence before it, and a line at an interpreter's prompt is shown with its output only when
// quoted for itself.
func isShortCode(s string, samples map[string][]string) bool {
	if rePrompt.MatchString(s) {
		return false
	}
	return samples[s] != nil || isShellLine(s) || looksLikeCode(s) && (strings.HasSuffix(s, ";") || strings.Contains(s, "="))
}

// isShellLine reports a command at a shell prompt ("$ git stash list"): quoted for itself (a
// command is often the answer), and laid out with its block's other lines.
func isShellLine(s string) bool { return strings.HasPrefix(s, "$ ") }

// reCallout matches a program line that ends in a callout number ("$ git diff --cached   <2>"),
// the number the list after the block explains it by.
var reCallout = regexp.MustCompile(`^(.*\S)\s+<(\d+)>\s*$`)

// splitCallout is a program line without its callout number, and the number (0 when the line
// ends in none).
func splitCallout(l string) (line string, n int) {
	m := reCallout.FindStringSubmatch(l)
	if m == nil {
		return strings.TrimSpace(l), 0
	}
	n, _ = strconv.Atoi(m[2])
	return strings.TrimSpace(m[1]), n
}

// calloutLines lists each item of a callout list (its first line, without the marker) with the
// program line its position numbers, the callout taken off: AsciiDoc's examples (git's manual
// pages) write a block of commands marked <1>, <2>, <3> and then a list explaining each, so an
// item quoted alone ("Changes between the index and your last commit") lacks the command it
// explains ("$ git diff --cached").
func calloutLines(body string) []callout {
	var out []callout
	lines := strings.Split(body, "\n")
	for i := 0; i < len(lines); i++ {
		marked := map[int]string{}
		for ; i < len(lines); i++ {
			line, n := splitCallout(lines[i])
			if n == 0 {
				break
			}
			marked[n] = line
		}
		// numbered from 1 on, a command a line: a session flattened onto one line ("$ git pull
		// <1> Auto-merging nitfol ... $ git reset --merge ORIG_HEAD <2>") is no such block
		complete := len(marked) > 0
		for n, line := range marked {
			complete = complete && n >= 1 && n <= len(marked) && len(line) <= maxCalloutLine
		}
		if !complete {
			continue
		}
		// the list after the block, blank lines between its items: the k-th item explains <k>
		for k := 1; i < len(lines); i++ {
			l := strings.TrimSpace(lines[i])
			if l == "" {
				continue
			}
			marker := reListMarker.FindString(l)
			if marker == "" {
				i-- // the next block may be another example's
				break
			}
			if line, ok := marked[k]; ok {
				out = append(out, callout{item: l[len(marker):], line: line})
			}
			k++
		}
	}
	return out
}

// maxCalloutLine is the longest program line a callout list's item is shown with.
const maxCalloutLine = 100

// callout is an item of a callout list (its first line, without the marker) and the program
// line it explains.
type callout struct{ item, line string }

// calloutOf is the program line a callout list's item explains (sent: one of its sentences,
// without the marker), "" when sent opens no item of one.
func calloutOf(callouts []callout, sent string) string {
	for _, c := range callouts {
		if strings.HasPrefix(c.item, sent) || strings.HasPrefix(sent, c.item) {
			return c.line
		}
	}
	return ""
}
