abstract class Job {
  run(): string {
    this.before();
    return this.execute();
  }

  protected before(): void {
    console.log('starting');
  }

  protected abstract execute(): string;
}

class Build extends Job {
  protected execute(): string {
    return compile();
  }
}

function compile(): string {
  return 'built';
}

console.log(new Build().run());
