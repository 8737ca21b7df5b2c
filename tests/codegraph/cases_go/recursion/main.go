package main

type Node struct{ next *Node }

func (n *Node) Walk() {
	if n.next != nil {
		n.next.Walk()
	}
}

func even(n int) bool {
	if n == 0 {
		return true
	}
	return odd(n - 1)
}

func odd(n int) bool {
	if n == 0 {
		return false
	}
	return even(n - 1)
}

func main() {
	even(4)
	(&Node{}).Walk()
}
