package main

import "errors"

type Server struct{ addr string }

func NewServer(addr string) *Server { return &Server{addr: addr} }

func Open(addr string) (*Server, error) {
	if addr == "" {
		return nil, errors.New("no address")
	}
	return NewServer(addr), nil
}

func (s *Server) Start() error { return nil }

func main() {
	s := NewServer(":80")
	s.Start()
	t, err := Open(":81")
	if err != nil {
		return
	}
	t.Start()
}
