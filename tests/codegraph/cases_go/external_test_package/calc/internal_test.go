package calc

import "testing"

func TestSub(t *testing.T) {
	sub(2, 1)
}
