#include "trainers/parallel/multi_process.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <new>

#include "dynet_core/device/device.h"
#include "dynet_core/gradient_set.h"
#include "dynet_core/init.h"
#include "dynet_core/param_collection.h"

namespace dynet {
namespace mp {

bool stop_requested = false;

namespace {

constexpr unsigned kEndOfPass = ~0u;

/// What the parent sends a child before each pass; run 0 ends the child.
struct PassHeader {
  std::uint8_t run;
  std::uint8_t dev;
  std::uint32_t report_frequency;
};

// Whole reads and writes, across interrupted calls; false at end of file or on an error.
template <class Byte, class Call>
bool transfer_all(Byte* p, std::size_t n, Call call) {
  while (n) {
    const ssize_t r = call(p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

bool read_all(int fd, void* to, std::size_t n) {
  return transfer_all(static_cast<char*>(to), n, [fd](char* p, std::size_t k) { return ::read(fd, p, k); });
}

bool write_all(int fd, const void* from, std::size_t n) {
  return transfer_all(static_cast<const char*>(from), n,
                      [fd](const char* p, std::size_t k) { return ::write(fd, p, k); });
}

[[noreturn]] void refused(const std::string& what) {
  throw std::runtime_error("dynet::mp: the system refused " + what + ": " + std::strerror(errno));
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

/// The page every process of a run shares: whose turn it is to add gradients or update, and how
/// many data have added theirs since the last update.
struct Children::Shared {
  pthread_mutex_t turn;
  unsigned added = 0;
};

struct Children::Pipes {
  int to_child[2] = {-1, -1};
  int to_parent[2] = {-1, -1};
};

namespace {

/// Holds the shared turn; a child that died holding it (a crash while adding) leaves it to the
/// next, whose pass the parent then reports as failed through the dead child.
class Turn {
 public:
  explicit Turn(pthread_mutex_t& m) : m_(m) {
    if (pthread_mutex_lock(&m_) == EOWNERDEAD) pthread_mutex_consistent(&m_);
  }
  ~Turn() { pthread_mutex_unlock(&m_); }
  Turn(const Turn&) = delete;
  Turn& operator=(const Turn&) = delete;

 private:
  pthread_mutex_t& m_;
};

}  // namespace

Children::Children(unsigned n, Work work) : work_(std::move(work)) {
  if (n == 0) throw std::invalid_argument("dynet::mp: the number of children must be at least 1");
  Device* device = default_device();
  if (!device->parameters_shared())
    throw std::invalid_argument("dynet::mp: the parameters are not shared between processes; start dybatch with "
                                "dynet::initialize(argc, argv, true), as DyNet's multi-process training requires");
  if (device->thread_pool())
    throw std::invalid_argument("dynet::mp: the threads of --dynet-threads do not survive fork; train with one "
                                "thread per process");
  void* page = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) refused("a shared page");
  shared_ = new (page) Shared;
  pthread_mutexattr_t attributes;
  pthread_mutexattr_init(&attributes);
  pthread_mutexattr_setpshared(&attributes, PTHREAD_PROCESS_SHARED);
  pthread_mutexattr_setrobust(&attributes, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(&shared_->turn, &attributes);
  pthread_mutexattr_destroy(&attributes);
  // Writing to a child that died must fail with EPIPE, not kill the parent.
  previous_sigpipe_ = signal(SIGPIPE, SIG_IGN);
  sigpipe_ignored_ = true;
  pipes_.resize(n);
  try {
    // A packet pipe: each read takes one whole index, whichever child reads.
    if (pipe2(queue_, O_DIRECT | O_CLOEXEC)) refused("the work queue's pipe");
    for (Pipes& p : pipes_)
      if (pipe2(p.to_child, O_CLOEXEC) || pipe2(p.to_parent, O_CLOEXEC)) refused("a pipe to a child");
    // What is buffered would be written again by every child.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    for (unsigned id = 0; id < n; ++id) {
      const pid_t pid = fork();
      if (pid < 0) refused("fork");
      if (pid == 0) serve(id);
      pids_.push_back(pid);
    }
  } catch (...) {
    release();
    throw;
  }
  close_fd(queue_[0]);
  for (Pipes& p : pipes_) {
    close_fd(p.to_child[0]);
    close_fd(p.to_parent[1]);
  }
}

Children::~Children() { release(); }

void Children::release() {
  const PassHeader end{0, 0, 0};
  for (Pipes& p : pipes_) {
    if (p.to_child[1] >= 0) write_all(p.to_child[1], &end, sizeof end);
    close_fd(p.to_child[0]);
    close_fd(p.to_child[1]);
  }
  // A child waiting for work sees the end of the queue.
  close_fd(queue_[0]);
  close_fd(queue_[1]);
  for (Pipes& p : pipes_) {
    close_fd(p.to_parent[0]);
    close_fd(p.to_parent[1]);
  }
  for (int& pid : pids_) {
    while (pid > 0 && waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    pid = -1;
  }
  if (shared_) {
    pthread_mutex_destroy(&shared_->turn);
    munmap(shared_, sizeof(Shared));
    shared_ = nullptr;
  }
  // SIG_DFL is a null handler, so whether it was replaced is kept apart.
  if (sigpipe_ignored_) signal(SIGPIPE, previous_sigpipe_);
  sigpipe_ignored_ = false;
}

std::string Children::ended(unsigned id) {
  std::string how = "ended";
  int status = 0;
  pid_t r;
  while ((r = waitpid(pids_[id], &status, 0)) < 0 && errno == EINTR) {
  }
  if (r == pids_[id]) {
    pids_[id] = -1;
    if (WIFSIGNALED(status))
      how = "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
    else if (WIFEXITED(status))
      how = "exited with status " + std::to_string(WEXITSTATUS(status));
  }
  return "child " + std::to_string(id) + " " + how + " during a pass; ";
}

void Children::serve(unsigned id) {
  Pipes& mine = pipes_[id];
  for (unsigned k = 0; k < pipes_.size(); ++k) {
    if (k == id) continue;
    close_fd(pipes_[k].to_child[0]);
    close_fd(pipes_[k].to_child[1]);
    close_fd(pipes_[k].to_parent[0]);
    close_fd(pipes_[k].to_parent[1]);
  }
  close_fd(mine.to_child[1]);
  close_fd(mine.to_parent[0]);
  close_fd(queue_[1]);
  // The parameters made so far stay shared; what this child allocates (its gradient set, child
  // 0's trainer state) must not land where another process allocates too.
  default_device()->keep_new_parameters_private();
  int code = 0;
  try {
    GradientSet gradients;
    const std::size_t bytes = work_.loss_bytes;
    std::vector<unsigned char> total(bytes), batch(bytes), loss(bytes);
    PassHeader h{};
    while (read_all(mine.to_child[0], &h, sizeof h) && h.run) {
      work_.clear(total.data());
      work_.clear(batch.data());
      std::string error;
      unsigned in_batch = 0, i = 0;
      while (read_all(queue_[0], &i, sizeof i) && i != kEndOfPass) {
        if (!error.empty() || stop_requested) continue;  // the rest of the pass is still taken off the queue
        try {
          {
            // Gradients of the dev set, which no one should compute, are dropped with the set.
            GradientSet::Scope scope(&gradients);
            work_.learn(i, h.dev, !h.dev, loss.data());
          }
          if (h.dev) {
            gradients.clear();
          } else {
            Turn turn(shared_->turn);
            gradients.add_to_parameters();
            ++shared_->added;
            if (work_.trainer && id == 0) {
              detail::update_with_mean(*work_.trainer, shared_->added);
              shared_->added = 0;
            }
          }
          work_.add(total.data(), loss.data());
          work_.add(batch.data(), loss.data());
          if (++in_batch == h.report_frequency) {
            if (id == 0 && work_.print) {
              std::cerr << (h.dev ? "dev" : "train") << " loss: ";
              work_.print(std::cerr, batch.data());
              std::cerr << std::endl;
            }
            work_.clear(batch.data());
            in_batch = 0;
          }
        } catch (const std::exception& e) {
          gradients.clear();
          error = std::string(h.dev ? "dev" : "training") + " datum " + std::to_string(i) + ": " + e.what();
        }
      }
      const std::uint32_t length = static_cast<std::uint32_t>(error.size());
      if (!write_all(mine.to_parent[1], &length, sizeof length) || !write_all(mine.to_parent[1], total.data(), bytes) ||
          !write_all(mine.to_parent[1], error.data(), length))
        break;
    }
  } catch (const std::exception& e) {
    std::cerr << "dynet::mp: child " << id << ": " << e.what() << std::endl;
    code = 1;
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  // Not exit(): the parent's static objects and atexit handlers are the parent's to run.
  _exit(code);
}

void Children::run(const unsigned* indices, std::size_t count, bool dev, unsigned report_frequency, void* sum) {
  work_.clear(sum);
  const PassHeader h{1, static_cast<std::uint8_t>(dev), report_frequency};
  std::string errors;
  for (unsigned k = 0; k < pipes_.size(); ++k)
    if (!write_all(pipes_[k].to_child[1], &h, sizeof h)) errors += ended(k);
  if (!errors.empty()) throw std::runtime_error("dynet::mp: " + errors);
  for (std::size_t k = 0; k < count && !stop_requested; ++k)
    if (!write_all(queue_[1], &indices[k], sizeof indices[k]))
      throw std::runtime_error("dynet::mp: every child ended before the pass was handed out");
  for (std::size_t k = 0; k < pipes_.size(); ++k)
    if (!write_all(queue_[1], &kEndOfPass, sizeof kEndOfPass))
      throw std::runtime_error("dynet::mp: every child ended before the pass was handed out");
  std::vector<unsigned char> part(work_.loss_bytes);
  for (unsigned k = 0; k < pipes_.size(); ++k) {
    const int from = pipes_[k].to_parent[0];
    std::uint32_t length = 0;
    if (!read_all(from, &length, sizeof length) || !read_all(from, part.data(), part.size())) {
      errors += ended(k);
      continue;
    }
    std::string error(length, '\0');
    if (!read_all(from, &error[0], length)) {
      errors += ended(k);
      continue;
    }
    if (length) errors += "child " + std::to_string(k) + " failed on " + error + "; ";
    work_.add(sum, part.data());
  }
  if (!errors.empty()) throw std::runtime_error("dynet::mp: " + errors.substr(0, errors.size() - 2));
}

namespace detail {

void check_frequency(const char* who, unsigned dev_frequency) {
  if (dev_frequency == 0)
    throw std::invalid_argument(std::string("dynet::mp::") + who +
                                ": dev_frequency must be at least 1 (the training data between dev passes)");
}

void update_with_mean(Trainer& trainer, unsigned data) {
  if (data > 1) {
    const float scale = 1.f / static_cast<float>(data);
    for (const auto& p : trainer.model->parameters_list()) p->scale_gradient(scale);
    for (const auto& t : trainer.model->lookup_parameters_list()) t->scale_gradient(scale);
  }
  trainer.update();
}

}  // namespace detail

}  // namespace mp
}  // namespace dynet
