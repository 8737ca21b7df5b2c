package calc_test

import (
	"testing"

	"example.com/calc/calc"
)

func TestAdd(t *testing.T) {
	if calc.Add(1, 2) != 3 {
		t.Fatal("add")
	}
	calc.Sub(2, 1)
}
