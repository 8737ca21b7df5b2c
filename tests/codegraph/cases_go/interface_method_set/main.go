package main

type Reader interface {
	Read() string
}

type ReadCloser interface {
	Reader
	Close() error
}

type File struct{}

func (f *File) Read() string { return "" }

func (f *File) Close() error { return nil }

type Buffer struct{}

func (b *Buffer) Read() string { return "" }

func drain(rc ReadCloser) {
	rc.Read()
	rc.Close()
}

func peek(r Reader) { r.Read() }

func main() {
	drain(&File{})
	peek(&Buffer{})
}
