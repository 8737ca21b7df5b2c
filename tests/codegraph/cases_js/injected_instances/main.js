class Logger {
  log(message) {
    console.log(message);
  }
}

class Service {
  constructor(logger) {
    this.logger = logger;
    this.cache = new Map();
  }

  run() {
    this.logger.log('run');
    return this.helper();
  }

  helper() {
    return this.cache.size;
  }
}

new Service(new Logger()).run();
