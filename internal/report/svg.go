package report

import (
	"encoding/xml"
	"fmt"
	"math"
	"strings"

	"github.com/sated-dev/sated/internal/research"
)

// Chart geometry: the plot sits left, the legend in a column on the right.
const (
	svgW, svgH         = 760, 400
	plotL, plotR       = 64, 560
	plotT, plotB       = 56, 340
	legendX            = 580
	maxNovelty         = 10.0
	unscoredLabel      = "not scored (drawn at 10)"
	thresholdDashArray = "6 4"
)

type markerStyle struct{ shape, color string }

// fixedStyles keeps the common decisions recognisable across reports; others take the
// palette in order of first appearance.
var fixedStyles = map[string]markerStyle{
	"continue":  {"circle", "#1f77b4"},
	"stop":      {"square", "#d62728"},
	"saturated": {"square", "#d62728"},
}

var palette = []markerStyle{
	{"triangle", "#2ca02c"}, {"diamond", "#ff7f0e"}, {"triangle", "#9467bd"},
	{"diamond", "#8c564b"}, {"circle", "#e377c2"}, {"square", "#7f7f7f"},
}

// SaturationSVG draws novelty per round against the threshold: one marker per round, shaped
// and coloured by the gate's decision; rounds not yet scored are hollow.
func SaturationSVG(rounds []research.Round, threshold float64) string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" font-family="sans-serif" font-size="12">`+"\n",
		svgW, svgH, svgW, svgH)
	w("<title>Saturation curve: novelty per search round</title>\n")
	w("<desc>%s</desc>\n", esc(fmt.Sprintf("%d rounds; novelty threshold %.1f", len(rounds), threshold)))
	w(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	w(`<text x="%d" y="28" font-size="16" font-weight="bold">Saturation curve: novelty per search round</text>`+"\n", plotL)

	maxRound := len(rounds)
	for _, r := range rounds {
		maxRound = max(maxRound, r.Round)
	}
	maxRound = max(maxRound, 1)
	x := func(n int) float64 { return plotL + (float64(n)-0.5)/float64(maxRound)*(plotR-plotL) }
	y := func(v float64) float64 {
		return plotB - math.Max(0, math.Min(maxNovelty, v))/maxNovelty*(plotB-plotT)
	}

	// Grid, y ticks and axes.
	for v := 0.0; v <= maxNovelty; v += 2 {
		w(`<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e5e5e5"/>`+"\n", plotL, y(v), plotR, y(v))
		w(`<text x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle">%g</text>`+"\n", plotL-8, y(v), v)
	}
	w(`<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333"/>`+"\n", plotL, plotB, plotR, plotB)
	w(`<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333"/>`+"\n", plotL, plotT, plotL, plotB)
	step := max(1, (maxRound+9)/10)
	for n := 1; n <= maxRound; n += step {
		w(`<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", x(n), plotB+18, n)
	}
	w(`<text x="%d" y="%d" text-anchor="middle">Search round</text>`+"\n", (plotL+plotR)/2, plotB+40)
	w(`<text x="18" y="%d" text-anchor="middle" transform="rotate(-90 18 %d)">Novelty (0-10)</text>`+"\n",
		(plotT+plotB)/2, (plotT+plotB)/2)

	// Threshold.
	w(`<line class="threshold" x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#d62728" stroke-width="1.5" stroke-dasharray="%s"/>`+"\n",
		plotL, y(threshold), plotR, y(threshold), thresholdDashArray)
	w(`<text x="%d" y="%.1f" text-anchor="end" fill="#d62728">%s</text>`+"\n",
		plotR-4, y(threshold)-6, esc(fmt.Sprintf("threshold %.1f", threshold)))

	if len(rounds) == 0 {
		w(`<text x="%d" y="%d" text-anchor="middle" fill="#666">No rounds recorded</text>`+"\n", (plotL+plotR)/2, (plotT+plotB)/2)
	}

	// Curve through the scored rounds.
	var pts []string
	for i, r := range rounds {
		if r.Scored {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(roundNumber(r, i)), y(r.Novelty)))
		}
	}
	if len(pts) > 1 {
		w(`<polyline class="curve" points="%s" fill="none" stroke="#555" stroke-width="1.5"/>`+"\n", strings.Join(pts, " "))
	}

	// Markers.
	styles := map[string]markerStyle{}
	var order []string
	anyUnscored, extra := false, 0
	for i, r := range rounds {
		decision := decisionName(r.Decision)
		st, ok := styles[decision]
		if !ok {
			st, ok = fixedStyles[strings.ToLower(decision)]
			if !ok {
				st = palette[extra%len(palette)]
				extra++
			}
			styles[decision] = st
			order = append(order, decision)
		}
		n, v := roundNumber(r, i), r.Novelty
		label := fmt.Sprintf("Round %d: novelty %.1f, %s; query: %s", n, v, decision, oneLine(r.Query))
		fill := st.color
		if !r.Scored {
			anyUnscored, fill, v = true, "white", maxNovelty
			label = fmt.Sprintf("Round %d: not scored, %s; query: %s", n, decision, oneLine(r.Query))
		}
		w(`<g class="marker" data-round="%d" data-decision="%s"><title>%s</title>%s</g>`+"\n",
			n, esc(decision), esc(label), shape(st.shape, x(n), y(v), fill, st.color))
	}

	// Legend.
	ly := plotT + 4
	w(`<text x="%d" y="%d" font-weight="bold">Decision</text>`+"\n", legendX, ly)
	for _, d := range order {
		ly += 22
		st := styles[d]
		w(`<g class="legend">%s<text x="%d" y="%d" dominant-baseline="middle">%s</text></g>`+"\n",
			shape(st.shape, legendX+6, float64(ly), st.color, st.color), legendX+20, ly, esc(d))
	}
	if anyUnscored {
		ly += 22
		w(`<g class="legend">%s<text x="%d" y="%d" dominant-baseline="middle">%s</text></g>`+"\n",
			shape("circle", legendX+6, float64(ly), "white", "#333"), legendX+20, ly, unscoredLabel)
	}
	ly += 22
	w(`<g class="legend"><line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#d62728" stroke-width="1.5" stroke-dasharray="%s"/><text x="%d" y="%d" dominant-baseline="middle">threshold</text></g>`+"\n",
		legendX, ly, legendX+14, ly, thresholdDashArray, legendX+20, ly)
	w("</svg>\n")
	return b.String()
}

func decisionName(d string) string {
	if d = oneLine(d); d == "" {
		return "(none)"
	}
	return d
}

// shape draws a marker of about 10px centred on (cx, cy).
func shape(kind string, cx, cy float64, fill, stroke string) string {
	const r = 5.0
	attrs := fmt.Sprintf(`fill="%s" stroke="%s" stroke-width="1.5"`, fill, stroke)
	switch kind {
	case "square":
		return fmt.Sprintf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" %s/>`, cx-r, cy-r, 2*r, 2*r, attrs)
	case "triangle":
		return fmt.Sprintf(`<polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f" %s/>`, cx, cy-r-1, cx+r+1, cy+r, cx-r-1, cy+r, attrs)
	case "diamond":
		return fmt.Sprintf(`<polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f" %s/>`, cx, cy-r-1, cx+r+1, cy, cx, cy+r+1, cx-r-1, cy, attrs)
	}
	return fmt.Sprintf(`<circle cx="%.1f" cy="%.1f" r="%.1f" %s/>`, cx, cy, r, attrs)
}

// esc escapes text for XML character data and attribute values.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // writing to a strings.Builder cannot fail
	return b.String()
}
