package extract

import (
	"regexp"
	"strings"
)

// escapeBase moves Markdown backslash escapes into the private-use area while syntax is
// stripped, so an escaped "\*" survives as a literal star.
const escapeBase = 0xE000

var (
	reEscape     = regexp.MustCompile("\\\\[!-/:-@\\[-`{-~]")
	reFence      = regexp.MustCompile("^\\s{0,3}(```|~~~)")
	reTableRule  = regexp.MustCompile(`^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)
	reRule       = regexp.MustCompile(`^\s{0,3}([-*_])(\s*[-*_]){2,}\s*$`)
	reRefDef     = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*\S+`)
	reBlockStart = regexp.MustCompile(`^\s*(>\s*)*(#{1,6}\s+|[-*+]\s+(\[[ xX]\]\s+)?|\d{1,9}[.)]\s+)?`)
	reImage      = regexp.MustCompile(`!\[((?:\\.|[^\]\\])*)\]\((?:[^()]|\([^)]*\))+\)`)
	reLink       = regexp.MustCompile(`\[((?:\\.|[^\]\\])*)\]\((?:[^()]|\([^)]*\))+\)`) // a link has a target: "f[i]()" is a call
	reRefLink    = regexp.MustCompile(`\[((?:\\.|[^\]\\])+)\]\[[^\]]*\]`)
	reAutolink   = regexp.MustCompile(`<((?:https?|mailto):[^>\s]+)>`)
	reTag        = regexp.MustCompile(`</?[a-zA-Z][a-zA-Z0-9-]*(\s[^>]*)?/?>`)
	reHeadingEnd = regexp.MustCompile(`\s+#+\s*$`)
	reEmphasis   = regexp.MustCompile(`(^|[\s(])[*_]([^\s*_](?:[^*_]*[^\s*_])?)[*_]($|[\s).,;:!?])`)
)

// PlainText strips Markdown syntax (links keep their text, code keeps its content) so that
// words and sentences can be counted; blocks stay on their own lines.
func PlainText(markdown string) string {
	md := reEscape.ReplaceAllStringFunc(markdown, func(m string) string {
		return string(rune(escapeBase + int(m[1])))
	})
	var out []string
	inFence := false
	for _, line := range strings.Split(md, "\n") {
		if reFence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if !inFence {
			if reTableRule.MatchString(line) || reRule.MatchString(line) || reRefDef.MatchString(line) {
				continue
			}
			line = plainLine(line)
		}
		line = strings.Join(strings.Fields(line), " ")
		if line == "" && (len(out) == 0 || out[len(out)-1] == "") {
			continue
		}
		out = append(out, line)
	}
	text := strings.TrimSpace(strings.Join(out, "\n"))
	return strings.Map(func(r rune) rune {
		if r > escapeBase && r < escapeBase+128 {
			return r - escapeBase
		}
		return r
	}, text)
}

func plainLine(line string) string {
	if strings.HasPrefix(strings.TrimSpace(line), "#") {
		line = reHeadingEnd.ReplaceAllString(line, "")
	}
	line = reBlockStart.ReplaceAllString(line, "")
	if strings.HasPrefix(line, "|") || strings.HasSuffix(line, "|") {
		line = strings.ReplaceAll(line, "|", " ")
	}
	line = reImage.ReplaceAllString(line, "$1")
	line = reLink.ReplaceAllString(line, "$1")
	line = reRefLink.ReplaceAllString(line, "$1")
	line = reAutolink.ReplaceAllString(line, "$1")
	line = reTag.ReplaceAllString(line, "")
	// strong emphasis, strike-through and code-span markers wrap text and can go, and so do
	// "*" and "_" around a word; any other "*" or "_" is code ("i = *p", "__init__") and stays:
	// a quote never loses meaning
	line = strings.NewReplacer("**", "", "~~", "", "`", "").Replace(line)
	return reEmphasis.ReplaceAllString(line, "$1$2$3")
}
