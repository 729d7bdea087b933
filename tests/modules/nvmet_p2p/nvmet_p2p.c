// SPDX-License-Identifier: GPL-2.0
/*
 * nvmet_p2p - an NVMe target transport that gives nvmet a P2P DMA client.
 *
 * nvmet serves a namespace from p2pmem only for a transport whose DMA
 * device can reach the provider: today only nvmet-rdma, with an RDMA NIC
 * on the PCI bus. QEMU has no such NIC (rxe and siw do no PCI DMA), so
 * nothing in a guest takes nvmet's p2pmem paths. This transport stands in
 * for one: it registers as the "fc" transport type (the test kernels do
 * not build nvmet-fc), names a PCI function as its DMA device, and issues
 * commands itself, as a host would send them, with nvmet's own transport
 * calls: nvmet_req_init(), nvmet_req_alloc_sgls(), ->execute(),
 * ->queue_response() and nvmet_req_free_sgls(). It moves no data over a
 * wire; the data a command carries is written into, or read out of, the
 * scatterlist nvmet allocated for it, which is the provider's P2P memory
 * when nvmet chose p2pmem.
 *
 * Interface (debugfs), /sys/kernel/debug/nvmet_p2p/ctl, one command per
 * write:
 *   "connect SUBNQN CLIENT"  connects an admin and one I/O queue to the
 *                            subsystem on a port of trtype fc; CLIENT is
 *                            the PCI name of the transport's DMA device
 *   "write NSID LBA NLB SEED [MS]" writes NLB blocks of a pattern made of
 *                            SEED, MS milliseconds after allocating the
 *                            command's memory (default 0)
 *   "read NSID LBA NLB SEED [MS]" reads them and compares with that pattern
 *   "disconnect"
 * Reading it gives the last command's outcome: "status=0xSSSS p2pmem=NAME
 * verified=0|1", where status is the NVMe status as a host would see it
 * (DNR is 0x4000) and NAME the provider whose memory held the data, or
 * "none" when nvmet used system memory.
 */
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "nvmet.h"

#define NVMET_P2P_QUEUE_SIZE	32

struct nvmet_p2p_queue {
	struct nvmet_sq		sq;
	struct nvmet_cq		cq;
	bool			live;
};

struct nvmet_p2p_cmd {
	struct nvmet_req	req;
	struct nvme_command	cmd;
	struct nvme_completion	cqe;
	struct completion	done;
};

static DEFINE_MUTEX(nvmet_p2p_lock);
static struct nvmet_port *nvmet_p2p_port;
static struct nvmet_p2p_queue nvmet_p2p_queues[2];
static struct pci_dev *nvmet_p2p_client;
static char nvmet_p2p_subnqn[NVMF_NQN_FIELD_LEN];
static u16 nvmet_p2p_cntlid;
static char nvmet_p2p_result[128] = "none\n";
static struct dentry *nvmet_p2p_dir;

static const struct nvmet_fabrics_ops nvmet_p2p_ops;

static void nvmet_p2p_queue_response(struct nvmet_req *req)
{
	complete(&container_of(req, struct nvmet_p2p_cmd, req)->done);
}

static int nvmet_p2p_add_port(struct nvmet_port *port)
{
	int ret = 0;

	mutex_lock(&nvmet_p2p_lock);
	if (nvmet_p2p_port)
		ret = -EBUSY;
	else
		nvmet_p2p_port = port;
	mutex_unlock(&nvmet_p2p_lock);
	return ret;
}

static void nvmet_p2p_remove_port(struct nvmet_port *port)
{
	mutex_lock(&nvmet_p2p_lock);
	if (nvmet_p2p_port == port)
		nvmet_p2p_port = NULL;
	mutex_unlock(&nvmet_p2p_lock);
}

/* The queues go away only when the test says "disconnect". */
static void nvmet_p2p_delete_ctrl(struct nvmet_ctrl *ctrl)
{
}

static const struct nvmet_fabrics_ops nvmet_p2p_ops = {
	.owner		= THIS_MODULE,
	.type		= NVMF_TRTYPE_FC,
	.add_port	= nvmet_p2p_add_port,
	.remove_port	= nvmet_p2p_remove_port,
	.queue_response	= nvmet_p2p_queue_response,
	.delete_ctrl	= nvmet_p2p_delete_ctrl,
};

/* the pattern of block data: each 8 bytes their own offset and the seed */
static void nvmet_p2p_fill(u64 *buf, size_t len, u64 lba, u64 seed)
{
	size_t i;

	for (i = 0; i < len / sizeof(u64); i++)
		buf[i] = (lba << 32) + i * sizeof(u64) + (seed << 56);
}

static struct nvmet_p2p_cmd *nvmet_p2p_cmd_alloc(void)
{
	struct nvmet_p2p_cmd *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
	c->req.cmd = &c->cmd;
	c->req.cqe = &c->cqe;
	c->req.port = nvmet_p2p_port;
	c->req.p2p_client = nvmet_p2p_client ? &nvmet_p2p_client->dev : NULL;
	c->cmd.common.flags = NVME_CMD_SGL_METABUF;
	init_completion(&c->done);
	return c;
}

/*
 * nvmet_p2p_submit - run one command as a transport does
 * @c: the command
 * @q: the queue it is sent on
 * @data: what it carries to the target, or NULL
 * @len: the length of its data
 *
 * Return: the NVMe status a host would see, or -errno when the command
 * could not be run at all.
 */
static int nvmet_p2p_submit(struct nvmet_p2p_cmd *c, struct nvmet_p2p_queue *q,
			    const void *data, size_t len)
{
	if (!nvmet_req_init(&c->req, &q->cq, &q->sq, &nvmet_p2p_ops))
		goto wait;	/* nvmet completed it with an error */
	c->req.transfer_len = len;
	if (len) {
		if (nvmet_req_alloc_sgls(&c->req)) {
			nvmet_req_uninit(&c->req);
			return -ENOMEM;
		}
		if (data)
			sg_copy_from_buffer(c->req.sg, c->req.sg_cnt, data, len);
	}
	c->req.execute(&c->req);
	wait_for_completion(&c->done);
	/* a transport frees the data of a command it completed */
	if (len)
		nvmet_req_free_sgls(&c->req);
	return le16_to_cpu(c->cqe.status) >> 1;
wait:
	wait_for_completion(&c->done);
	return le16_to_cpu(c->cqe.status) >> 1;
}

static int nvmet_p2p_connect_queue(u16 qid, const char *subnqn)
{
	struct nvmet_p2p_queue *q = &nvmet_p2p_queues[qid];
	struct nvmf_connect_data *d;
	struct nvmet_p2p_cmd *c;
	int ret;

	ret = nvmet_sq_init(&q->sq);
	if (ret)
		return ret;
	q->live = true;

	c = nvmet_p2p_cmd_alloc();
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!c || !d) {
		ret = -ENOMEM;
		goto out;
	}
	c->cmd.connect.opcode = nvme_fabrics_command;
	c->cmd.connect.fctype = nvme_fabrics_type_connect;
	c->cmd.connect.qid = cpu_to_le16(qid);
	c->cmd.connect.sqsize = cpu_to_le16(NVMET_P2P_QUEUE_SIZE - 1);
	d->cntlid = cpu_to_le16(qid ? nvmet_p2p_cntlid : 0xffff);
	strscpy(d->subsysnqn, subnqn, sizeof(d->subsysnqn));
	strscpy(d->hostnqn, "nqn.2026-12.invalid:nvmet-p2p-host",
		sizeof(d->hostnqn));

	ret = nvmet_p2p_submit(c, q, d, sizeof(*d));
	if (!ret && !qid)
		nvmet_p2p_cntlid = le16_to_cpu(c->cqe.result.u16);
	if (ret > 0)
		pr_err("connect of queue %u failed: status %#x\n", qid, ret);
out:
	kfree(d);
	kfree(c);
	return ret > 0 ? -EIO : ret;
}

/* Controller enable: Property Set of CC, as a host does before I/O. */
static int nvmet_p2p_enable(void)
{
	struct nvmet_p2p_cmd *c = nvmet_p2p_cmd_alloc();
	u32 cc = NVME_CC_ENABLE | NVME_CC_CSS_NVM |
		 (NVME_NVM_IOSQES << NVME_CC_IOSQES_SHIFT) |
		 (NVME_NVM_IOCQES << NVME_CC_IOCQES_SHIFT);
	int ret;

	if (!c)
		return -ENOMEM;
	c->cmd.prop_set.opcode = nvme_fabrics_command;
	c->cmd.prop_set.fctype = nvme_fabrics_type_property_set;
	c->cmd.prop_set.offset = cpu_to_le32(NVME_REG_CC);
	c->cmd.prop_set.value = cpu_to_le64(cc);
	ret = nvmet_p2p_submit(c, &nvmet_p2p_queues[0], NULL, 0);
	kfree(c);
	return ret > 0 ? -EIO : ret;
}

static void nvmet_p2p_disconnect(void)
{
	int qid;

	for (qid = ARRAY_SIZE(nvmet_p2p_queues) - 1; qid >= 0; qid--) {
		if (!nvmet_p2p_queues[qid].live)
			continue;
		nvmet_sq_destroy(&nvmet_p2p_queues[qid].sq);
		nvmet_p2p_queues[qid].live = false;
	}
	pci_dev_put(nvmet_p2p_client);
	nvmet_p2p_client = NULL;
}

static int nvmet_p2p_connect(const char *subnqn, const char *client)
{
	unsigned int domain, bus, slot, fn;
	int ret;

	if (nvmet_p2p_queues[0].live)
		return -EBUSY;
	if (!nvmet_p2p_port)
		return -ENODEV;
	if (sscanf(client, "%x:%x:%x.%x", &domain, &bus, &slot, &fn) != 4)
		return -EINVAL;
	nvmet_p2p_client = pci_get_domain_bus_and_slot(domain, bus,
						       PCI_DEVFN(slot, fn));
	if (!nvmet_p2p_client)
		return -ENODEV;

	ret = nvmet_p2p_connect_queue(0, subnqn);
	if (!ret)
		ret = nvmet_p2p_enable();
	if (!ret)
		ret = nvmet_p2p_connect_queue(1, subnqn);
	if (ret)
		nvmet_p2p_disconnect();
	return ret;
}

/*
 * One read or write of NLB blocks; the outcome goes to nvmet_p2p_result.
 * @delay_ms passes between the allocation of the command's memory and its
 * execution, as while nvmet-rdma fetches a write's data from the host:
 * a reset of the provider or a change of the stack may come in between.
 */
static int nvmet_p2p_io(bool write, u32 nsid, u64 lba, u32 nlb, u64 seed,
			unsigned int delay_ms)
{
	struct nvmet_p2p_queue *q = &nvmet_p2p_queues[1];
	struct nvmet_p2p_cmd *c;
	const char *p2pmem = "none";
	bool verified = false;
	void *buf = NULL;
	size_t len = 0;
	int status;

	if (!q->live)
		return -ENOTCONN;
	if (!nlb || nlb > 256 || delay_ms > 10000)
		return -EINVAL;
	c = nvmet_p2p_cmd_alloc();
	if (!c)
		return -ENOMEM;
	c->cmd.rw.opcode = write ? nvme_cmd_write : nvme_cmd_read;
	c->cmd.rw.nsid = cpu_to_le32(nsid);
	c->cmd.rw.slba = cpu_to_le64(lba);
	c->cmd.rw.length = cpu_to_le16(nlb - 1);

	if (!nvmet_req_init(&c->req, &q->cq, &q->sq, &nvmet_p2p_ops)) {
		wait_for_completion(&c->done);
		status = le16_to_cpu(c->cqe.status) >> 1;
		goto report;
	}
	len = (size_t)nlb << c->req.ns->blksize_shift;
	c->req.transfer_len = len;
	buf = vmalloc(len);
	if (!buf || nvmet_req_alloc_sgls(&c->req)) {
		nvmet_req_uninit(&c->req);
		vfree(buf);
		kfree(c);
		return -ENOMEM;
	}
	if (c->req.p2p_dev)
		p2pmem = pci_name(c->req.p2p_dev);
	nvmet_p2p_fill(buf, len, lba, seed);
	if (write)
		sg_copy_from_buffer(c->req.sg, c->req.sg_cnt, buf, len);
	if (delay_ms)
		msleep(delay_ms);
	c->req.execute(&c->req);
	wait_for_completion(&c->done);
	status = le16_to_cpu(c->cqe.status) >> 1;
	if (!write && !status) {
		void *got = vmalloc(len);

		if (got) {
			sg_copy_to_buffer(c->req.sg, c->req.sg_cnt, got, len);
			verified = !memcmp(got, buf, len);
			vfree(got);
		}
	}
	if (write)
		verified = !status;
	nvmet_req_free_sgls(&c->req);
report:
	snprintf(nvmet_p2p_result, sizeof(nvmet_p2p_result),
		 "status=%#06x p2pmem=%s verified=%d\n", status, p2pmem,
		 verified);
	pr_info("%s nsid %u lba %llu nlb %u: %s", write ? "write" : "read",
		nsid, lba, nlb, nvmet_p2p_result);
	vfree(buf);
	kfree(c);
	return 0;
}

static int nvmet_p2p_run(char *line)
{
	unsigned int delay_ms = 0;
	char client[32], op[16];
	u32 nsid, nlb;
	u64 lba, seed;

	if (sscanf(line, "connect %223s %31s", nvmet_p2p_subnqn, client) == 2)
		return nvmet_p2p_connect(nvmet_p2p_subnqn, client);
	if (!strcmp(strim(line), "disconnect")) {
		nvmet_p2p_disconnect();
		return 0;
	}
	if (sscanf(line, "%15s %u %llu %u %llu %u", op, &nsid, &lba, &nlb,
		   &seed, &delay_ms) >= 5 &&
	    (!strcmp(op, "read") || !strcmp(op, "write")))
		return nvmet_p2p_io(!strcmp(op, "write"), nsid, lba, nlb, seed,
				    delay_ms);
	return -EINVAL;
}

static ssize_t nvmet_p2p_ctl_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	char *line;
	int ret;

	if (count > 512)
		return -EINVAL;
	line = memdup_user_nul(ubuf, count);
	if (IS_ERR(line))
		return PTR_ERR(line);
	mutex_lock(&nvmet_p2p_lock);
	ret = nvmet_p2p_run(line);
	mutex_unlock(&nvmet_p2p_lock);
	kfree(line);
	return ret ? ret : count;
}

static ssize_t nvmet_p2p_ctl_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	return simple_read_from_buffer(ubuf, count, ppos, nvmet_p2p_result,
				       strlen(nvmet_p2p_result));
}

static const struct file_operations nvmet_p2p_ctl_fops = {
	.owner	= THIS_MODULE,
	.write	= nvmet_p2p_ctl_write,
	.read	= nvmet_p2p_ctl_read,
};

static int __init nvmet_p2p_init(void)
{
	int ret = nvmet_register_transport(&nvmet_p2p_ops);

	if (ret)
		return ret;
	nvmet_p2p_dir = debugfs_create_dir("nvmet_p2p", NULL);
	debugfs_create_file("ctl", 0600, nvmet_p2p_dir, NULL,
			    &nvmet_p2p_ctl_fops);
	return 0;
}

static void __exit nvmet_p2p_exit(void)
{
	debugfs_remove_recursive(nvmet_p2p_dir);
	mutex_lock(&nvmet_p2p_lock);
	nvmet_p2p_disconnect();
	mutex_unlock(&nvmet_p2p_lock);
	nvmet_unregister_transport(&nvmet_p2p_ops);
}

module_init(nvmet_p2p_init);
module_exit(nvmet_p2p_exit);
MODULE_DESCRIPTION("NVMe target test transport with a P2P DMA client");
MODULE_LICENSE("GPL");
