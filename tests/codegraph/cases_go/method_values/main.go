package main

type Job struct{}

func (j *Job) Run() {}

func (j *Job) Stop() {}

func call(f func()) { f() }

func main() {
	j := &Job{}
	run := j.Run
	run()
	stop := j.Stop
	call(stop)
	handlers := map[string]func(){"run": j.Run}
	_ = handlers
}
