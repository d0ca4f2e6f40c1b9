// Linux system calls the event loops need, in one place, compiled with _GNU_SOURCE.
// Swift's Glibc module does not reliably expose epoll, eventfd, timerfd, signalfd and accept4,
// and some of their constants are macros the importer drops; these wrappers give them types.
#ifndef APPNATIVE_LINUX_H
#define APPNATIVE_LINUX_H

#include <stdint.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <spawn.h>

// epoll: events are EPOLLIN/EPOLLOUT/EPOLLRDHUP/EPOLLERR/EPOLLHUP, edge-triggered when requested.
int appnative_epoll_create(void);
int appnative_epoll_add(int epfd, int fd, uint32_t events, uint64_t data);
int appnative_epoll_modify(int epfd, int fd, uint32_t events, uint64_t data);
int appnative_epoll_remove(int epfd, int fd);
/// Waits for events; fills parallel arrays of event masks and user data. Returns count or -1.
int appnative_epoll_wait(int epfd, uint32_t *events, uint64_t *data, int capacity, int timeout_ms);

extern const uint32_t appnative_epollin;
extern const uint32_t appnative_epollout;
extern const uint32_t appnative_epollrdhup;
extern const uint32_t appnative_epollerr;
extern const uint32_t appnative_epollhup;
extern const uint32_t appnative_epollet;

// eventfd for cross-thread wake-ups (non-blocking, close-on-exec).
int appnative_eventfd_create(void);
int appnative_eventfd_signal(int fd);
int appnative_eventfd_drain(int fd);

// signalfd for SIGTERM/SIGINT/SIGHUP, read on loop 0 (signals blocked in every thread).
int appnative_block_signals(const int *signals, int count);
int appnative_signalfd_create(const int *signals, int count);
/// Reads one pending signal number, 0 when none, -1 on error.
int appnative_signalfd_read(int fd);

// Sockets: non-blocking and close-on-exec from the start.
int appnative_accept(int listen_fd, struct sockaddr_storage *address, socklen_t *length);
int appnative_socket_stream(int family);
int appnative_set_reuse(int fd, int reuse_port);
int appnative_set_nodelay(int fd);
// TCP_CORK on (1) or off (0); turning it off sends what it held at once (tcp(7)).
int appnative_set_cork(int fd, int on);
// TCP_CORK's current value (1 or 0), or -1 with errno set.
int appnative_cork(int fd);
// Bytes in the send queue not yet sent (SIOCOUTQNSD), or -1 with errno set.
int appnative_unsent_bytes(int fd);
int appnative_connect_in_progress(int err);
int appnative_socket_error(int fd);

// errno constants that differ in name across libcs; returned for comparisons in Swift.
int appnative_errno(void);
extern const int appnative_eagain;
extern const int appnative_eintr;
extern const int appnative_einprogress;
extern const int appnative_econnreset;
extern const int appnative_epipe;
extern const int appnative_emfile;
extern const int appnative_enfile;
extern const int appnative_ebadf;
extern const int appnative_efault;

/// send(2) with MSG_NOSIGNAL: a peer that closed must not kill the process with SIGPIPE.
ssize_t appnative_send(int fd, const void *buffer, size_t length);
/// writev-like send of two buffers (head + body) in one call, MSG_NOSIGNAL.
ssize_t appnative_send2(int fd, const void *first, size_t first_length, const void *second, size_t second_length);

/// getrusage(RUSAGE_SELF) peak RSS in KiB, for tests and benchmarks.
long appnative_peak_rss_kib(void);
/// Current RSS in KiB from /proc/self/statm.
long appnative_current_rss_kib(void);
/// Number of open file descriptors in /proc/self/fd.
int appnative_open_fd_count(void);
/// posix_spawn_file_actions_addclosefrom_np: the spawned child closes every descriptor from
/// `lowest` up, so it inherits none the parent opened without close-on-exec.
int appnative_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

// Names the calling thread (at most 15 bytes are kept) for top -H, perf and crash reports.
void appnative_set_thread_name(const char *name);

#endif
