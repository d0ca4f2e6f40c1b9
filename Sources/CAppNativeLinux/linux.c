#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "CAppNativeLinux.h"

#include <dirent.h>
#include <pthread.h>
#include <spawn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/uio.h>
#include <unistd.h>

const uint32_t appnative_epollin = EPOLLIN;
const uint32_t appnative_epollout = EPOLLOUT;
const uint32_t appnative_epollrdhup = EPOLLRDHUP;
const uint32_t appnative_epollerr = EPOLLERR;
const uint32_t appnative_epollhup = EPOLLHUP;
const uint32_t appnative_epollet = EPOLLET;

const int appnative_eagain = EAGAIN;
const int appnative_eintr = EINTR;
const int appnative_einprogress = EINPROGRESS;
const int appnative_econnreset = ECONNRESET;
const int appnative_epipe = EPIPE;
const int appnative_emfile = EMFILE;
const int appnative_enfile = ENFILE;
const int appnative_ebadf = EBADF;
const int appnative_efault = EFAULT;

int appnative_errno(void) { return errno; }

int appnative_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

static int control(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = events;
    event.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &event);
}

int appnative_epoll_add(int epfd, int fd, uint32_t events, uint64_t data) { return control(epfd, EPOLL_CTL_ADD, fd, events, data); }
int appnative_epoll_modify(int epfd, int fd, uint32_t events, uint64_t data) { return control(epfd, EPOLL_CTL_MOD, fd, events, data); }
int appnative_epoll_remove(int epfd, int fd) { return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL); }

int appnative_epoll_wait(int epfd, uint32_t *events, uint64_t *data, int capacity, int timeout_ms) {
    struct epoll_event buffer[256];
    if (capacity > 256) capacity = 256;
    int count;
    do {
        count = epoll_wait(epfd, buffer, capacity, timeout_ms);
    } while (count < 0 && errno == EINTR);
    for (int i = 0; i < count; i++) {
        events[i] = buffer[i].events;
        data[i] = buffer[i].data.u64;
    }
    return count;
}

int appnative_eventfd_create(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int appnative_eventfd_signal(int fd) {
    uint64_t one = 1;
    ssize_t written;
    do {
        written = write(fd, &one, sizeof one);
    } while (written < 0 && errno == EINTR);
    // EAGAIN means the counter is saturated: a wake-up is already pending, which is all we need.
    return (written == sizeof one || errno == EAGAIN) ? 0 : -1;
}

int appnative_eventfd_drain(int fd) {
    uint64_t value;
    ssize_t got;
    do {
        got = read(fd, &value, sizeof value);
    } while (got < 0 && errno == EINTR);
    return got < 0 && errno != EAGAIN ? -1 : 0;
}

static int fill_set(sigset_t *set, const int *signals, int count) {
    sigemptyset(set);
    for (int i = 0; i < count; i++) {
        if (sigaddset(set, signals[i]) != 0) return -1;
    }
    return 0;
}

int appnative_block_signals(const int *signals, int count) {
    sigset_t set;
    if (fill_set(&set, signals, count) != 0) return -1;
    return pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int appnative_signalfd_create(const int *signals, int count) {
    sigset_t set;
    if (fill_set(&set, signals, count) != 0) return -1;
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int appnative_signalfd_read(int fd) {
    struct signalfd_siginfo info;
    ssize_t got;
    do {
        got = read(fd, &info, sizeof info);
    } while (got < 0 && errno == EINTR);
    if (got == sizeof info) return (int)info.ssi_signo;
    return (got < 0 && errno == EAGAIN) ? 0 : -1;
}

int appnative_accept(int listen_fd, struct sockaddr_storage *address, socklen_t *length) {
    int fd;
    do {
        *length = sizeof *address;
        fd = accept4(listen_fd, (struct sockaddr *)address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    return fd;
}

int appnative_socket_stream(int family) { return socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0); }

int appnative_set_reuse(int fd, int reuse_port) {
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0) return -1;
    if (reuse_port && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) return -1;
    return 0;
}

int appnative_set_nodelay(int fd) {
    int one = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int appnative_set_cork(int fd, int on) {
    int value = on ? 1 : 0;
    return setsockopt(fd, IPPROTO_TCP, TCP_CORK, &value, sizeof value);
}

int appnative_cork(int fd) {
    int value = 0;
    socklen_t length = sizeof value;
    if (getsockopt(fd, IPPROTO_TCP, TCP_CORK, &value, &length) != 0) return -1;
    return value ? 1 : 0;
}

int appnative_unsent_bytes(int fd) {
    int value = 0;
    if (ioctl(fd, SIOCOUTQNSD, &value) != 0) return -1;
    return value;
}

int appnative_connect_in_progress(int err) { return err == EINPROGRESS; }

int appnative_socket_error(int fd) {
    int value = 0;
    socklen_t length = sizeof value;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) != 0) return errno;
    return value;
}

ssize_t appnative_send(int fd, const void *buffer, size_t length) {
    ssize_t sent;
    do {
        sent = send(fd, buffer, length, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    return sent;
}

ssize_t appnative_send2(int fd, const void *first, size_t first_length, const void *second, size_t second_length) {
    struct iovec parts[2] = {{(void *)first, first_length}, {(void *)second, second_length}};
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = parts;
    message.msg_iovlen = second_length > 0 ? 2 : 1;
    ssize_t sent;
    do {
        sent = sendmsg(fd, &message, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    return sent;
}

long appnative_peak_rss_kib(void) {
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0) return -1;
    return usage.ru_maxrss;
}

long appnative_current_rss_kib(void) {
    FILE *file = fopen("/proc/self/statm", "re");
    if (!file) return -1;
    long pages = 0, resident = 0;
    int matched = fscanf(file, "%ld %ld", &pages, &resident);
    fclose(file);
    if (matched != 2) return -1;
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

int appnative_open_fd_count(void) {
    DIR *directory = opendir("/proc/self/fd");
    if (!directory) return -1;
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL) {
        if (entry->d_name[0] != '.') count++;
    }
    closedir(directory);
    return count - 1;  // the directory stream's own descriptor
}

int appnative_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

void appnative_set_thread_name(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = 0;
    pthread_setname_np(pthread_self(), truncated);
}
