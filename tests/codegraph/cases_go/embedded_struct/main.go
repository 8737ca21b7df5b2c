package main

type Logger struct{}

func (l *Logger) Log(msg string) {}

type Service struct {
	Logger
	name string
}

func (s *Service) Run() {
	s.Log("run")
	s.Logger.Log("again")
}

func main() {
	s := &Service{}
	s.Run()
	s.Log("main")
}
