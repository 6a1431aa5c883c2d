package memory

import (
	"net/url"
	"regexp"
	"strings"
)

// Injection finding kinds, as recorded in the quarantine log.
const (
	FindingInstruction = "instruction-to-model"
	FindingRoleMarker  = "role-marker"
	FindingHiddenText  = "hidden-text"
	FindingExfilLink   = "exfiltration-link"
)

var (
	instructionREs = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}\b(previous|prior|above|earlier|preceding|all|any|your|the)\b[^.\n]{0,40}\b(instructions?|prompts?|rules|directions|guidelines|directives|context)\b`),
		regexp.MustCompile(`(?i)\byou are now\b|\bfrom now on,? you\b|\bnew instructions?\s*:|\b(reveal|print|repeat|show)\b[^.\n]{0,20}\b(system|hidden|initial)\s+prompt\b`),
		regexp.MustCompile(`(?i)\b(do not|don't|never)\s+(tell|inform|reveal to|mention to)\s+the\s+user\b|\b(as an? (ai|language model|llm|assistant)),? (you )?(must|should)\b`),
	}
	roleMarkerREs = []*regexp.Regexp{
		regexp.MustCompile(`(?im)^\s*(system|assistant|developer|user|human)\s*:`),
		regexp.MustCompile(`(?i)<\|\s*(im_start|im_end|system|assistant|user|endoftext|eot_id|start_header_id|end_header_id)\s*\|>`),
		regexp.MustCompile(`(?i)\[/?INST\]|<<\s*/?SYS\s*>>|</?(system|assistant)>`),
		regexp.MustCompile(`(?im)^\s*#{2,4}\s*(system|assistant|user|instruction|instructions|human|response)\b\s*:?\s*$`),
	}
	hiddenREs = []*regexp.Regexp{
		regexp.MustCompile("[\u200B-\u200F\u2060-\u2064\uFEFF\u202A-\u202E\u2066-\u2069\U000E0000-\U000E007F]"),
		regexp.MustCompile(`<!--[\s\S]*?-->`),
		regexp.MustCompile(`(?i)display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(px|pt|em)?\b|opacity\s*:\s*0(\.0+)?\s*[;"']|color\s*:\s*transparent`),
	}
	mdImageRE = regexp.MustCompile(`!\[[^\]]*\]\(\s*<?([^)\s>]+)`)
	mdLinkRE  = regexp.MustCompile(`(?:^|[^!])\[[^\]]*\]\(\s*<?([^)\s>]+)`)
	htmlImgRE = regexp.MustCompile(`(?i)<img[^>]+src\s*=\s*["']?([^"'\s>]+)`)
	templRE   = regexp.MustCompile(`[{}<>$]|%7[bBdD]|%3[cCeE]|%24`)
)

// ScanInjection reports what makes text unsafe to hand back to a model later: instructions
// aimed at the model, chat role markers, hidden text, and links built to carry data out. No
// findings means the text may be stored.
func ScanInjection(text string) []string {
	var out []string
	check := func(kind string, res []*regexp.Regexp) {
		for _, re := range res {
			if re.MatchString(text) {
				out = append(out, kind)
				return
			}
		}
	}
	check(FindingInstruction, instructionREs)
	check(FindingRoleMarker, roleMarkerREs)
	check(FindingHiddenText, hiddenREs)
	if hasExfilLink(text) {
		out = append(out, FindingExfilLink)
	}
	return out
}

// hasExfilLink flags images that carry a query string (a model rendering them sends the
// query to the host unasked) and links whose query looks filled in from the conversation:
// template placeholders or long values.
func hasExfilLink(text string) bool {
	for _, re := range []*regexp.Regexp{mdImageRE, htmlImgRE} {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			if rawQuery(m[1]) != "" {
				return true
			}
		}
	}
	for _, m := range mdLinkRE.FindAllStringSubmatch(text, -1) {
		q := rawQuery(m[1])
		if q == "" {
			continue
		}
		if templRE.MatchString(q) {
			return true
		}
		vals, _ := url.ParseQuery(q) // a partly malformed query still yields its good pairs
		for _, vs := range vals {
			for _, v := range vs {
				if len(v) >= 40 || strings.Count(v, " ") >= 3 {
					return true
				}
			}
		}
	}
	return false
}

// rawQuery is the part of a link target after '?', without any fragment.
func rawQuery(target string) string {
	_, q, ok := strings.Cut(target, "?")
	if !ok {
		return ""
	}
	q, _, _ = strings.Cut(q, "#")
	return q
}
