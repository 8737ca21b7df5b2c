package main

type Task struct{}

func (t *Task) Do() {}

type Queue struct {
	tasks []*Task
	byID  map[string]*Task
}

func (q *Queue) RunAll() {
	for _, t := range q.tasks {
		t.Do()
	}
	for _, t := range q.byID {
		t.Do()
	}
	q.tasks[0].Do()
}

func load() []*Task { return nil }

func main() {
	for i, t := range load() {
		_ = i
		t.Do()
	}
	q := &Queue{}
	q.RunAll()
}
