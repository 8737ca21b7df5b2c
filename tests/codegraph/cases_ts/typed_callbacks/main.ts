type Handler = (event: string) => void;

class Emitter {
  private handlers: Handler[] = [];

  on(handler: Handler): this {
    this.handlers.push(handler);
    return this;
  }

  emit(event: string): void {
    this.handlers.forEach((h) => h(event));
  }
}

function audit(event: string): void {
  console.log('audit', event);
}

function run(task: () => void): void {
  task();
}

new Emitter().on(audit).emit('start');
run(() => audit('run'));
