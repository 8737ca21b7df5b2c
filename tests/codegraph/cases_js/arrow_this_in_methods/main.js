class Poller {
  constructor(urls) {
    this.urls = urls;
    this.seen = 0;
  }

  run() {
    this.urls.forEach((u) => this.fetch(u));
    return new Promise((resolve) => {
      this.done();
      resolve();
    });
  }

  fetch(u) {
    this.seen += 1;
    console.log(u);
  }

  done() {
    console.log('done', this.seen);
  }
}

new Poller(['a']).run();
