package novelty

// ShareScore turns the share (0-1) of the findings a round's new passages write into the gate's
// 0-10 scale: 30x the share, capped at 10, so the default threshold 3 asks a round to write a
// tenth of the findings. Measured on the six dev and held-out sets (internal/devloop,
// SCORE=answer, GATE=0.5/1/1.5/3 on 10x the share): a tenth read most (expected saturation
// recall 0.294 pooled; 0.285, 0.285 and 0.284 at a twentieth, three twentieths and three
// tenths), and rounds 3-5 seldom write more than a quarter.
func ShareScore(share float64) float64 {
	return min(10, max(0, 30*share))
}
