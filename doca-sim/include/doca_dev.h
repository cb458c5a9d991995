/*
 * Reference header written by the doca-rs project from public facts about the
 * DOCA C API; not NVIDIA's header.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

/**
 * @file doca_dev.h
 * @brief Finding, describing and opening DOCA devices and their representors.
 *
 * A program lists the devices (each entry is a devinfo), picks one, opens it
 * to get a doca_dev, and may then destroy the list: an opened device stays
 * valid on its own. Each open raises a reference count that the matching close
 * lowers again. Representors (on a BlueField, the switch-side ports of host
 * functions) are listed from an opened device and opened the same way.
 */

#ifndef DOCA_DEV_H_
#define DOCA_DEV_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>
#include <doca_version.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Description of a device, as found in the device list. */
struct doca_devinfo;
/** Description of a representor, as found in a representor list. */
struct doca_devinfo_rep;
/** An opened device. */
struct doca_dev;
/** An opened representor. */
struct doca_dev_rep;

/** Bytes needed for a device's vendor-unique id. */
#define DOCA_DEVINFO_VUID_SIZE 128
/** Bytes of an IPv4 address. */
#define DOCA_DEVINFO_IPV4_ADDR_SIZE 4
/** Bytes of an IPv6 address. */
#define DOCA_DEVINFO_IPV6_ADDR_SIZE 16
/** Bytes of a MAC address. */
#define DOCA_DEVINFO_MAC_ADDR_SIZE 6
/** Bytes needed for a network interface name, terminator included. */
#define DOCA_DEVINFO_IFACE_NAME_SIZE 256
/** Bytes needed for an InfiniBand device name, terminator included. */
#define DOCA_DEVINFO_IBDEV_NAME_SIZE 64
/** Bytes needed for a PCI address string such as "0000:03:00.0", terminator included. */
#define DOCA_DEVINFO_PCI_ADDR_SIZE 13
/** Bytes needed for a PCI bus:device.function string, terminator included. */
#define DOCA_DEVINFO_PCI_BDF_SIZE 8
/** Bytes needed for a representor's vendor-unique id. */
#define DOCA_DEVINFO_REP_VUID_SIZE 128
/** Bytes needed for a representor's PCI address string, terminator included. */
#define DOCA_DEVINFO_REP_PCI_ADDR_SIZE 13
/** Bytes needed for a representor's PCI bus:device.function string, terminator included. */
#define DOCA_DEVINFO_REP_PCI_BDF_SIZE 8

/**
 * @brief Which representors a representor list should contain.
 *
 * Values are bits; pass their bitwise OR as the filter argument.
 */
enum doca_devinfo_rep_filter {
	DOCA_DEVINFO_REP_FILTER_ALL = 0,	     /**< No filtering: every representor. */
	DOCA_DEVINFO_REP_FILTER_NET = (1 << 1),	     /**< Network function representors. */
	DOCA_DEVINFO_REP_FILTER_EMULATED = (1 << 2), /**< Emulated PCI function representors. */
};

/**
 * @brief Builds the list of devices present on this machine.
 *
 * @param [out] dev_list receives an array of devinfo pointers, valid until the list is destroyed.
 * @param [out] nb_devs receives the number of entries in the array.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * another DOCA error code when the devices cannot be enumerated.
 */
DOCA_STABLE
doca_error_t doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs);

/**
 * @brief Frees a device list; its devinfo pointers become invalid, opened devices stay valid.
 *
 * @param [in] dev_list the array returned by doca_devinfo_create_list().
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL list.
 */
DOCA_STABLE
doca_error_t doca_devinfo_destroy_list(struct doca_devinfo **dev_list);

/**
 * @brief Builds the list of representors reachable through an opened device.
 *
 * @param [in] dev the opened device whose representors are wanted.
 * @param [in] filter a bitwise OR of enum doca_devinfo_rep_filter values.
 * @param [out] dev_list_rep receives an array of representor descriptions.
 * @param [out] nb_devs_rep receives the number of entries in the array.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * another DOCA error code when the representors cannot be enumerated (see
 * doca_devinfo_rep_cap_is_filter_net_supported() before asking for network ones).
 */
DOCA_STABLE
doca_error_t doca_devinfo_rep_create_list(struct doca_dev *dev, int filter, struct doca_devinfo_rep ***dev_list_rep,
					  uint32_t *nb_devs_rep);

/**
 * @brief Frees a representor list.
 *
 * @param [in] dev_list_rep the array returned by doca_devinfo_rep_create_list().
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL list.
 */
DOCA_STABLE
doca_error_t doca_devinfo_rep_destroy_list(struct doca_devinfo_rep **dev_list_rep);

/**
 * @brief Opens a listed device.
 *
 * @param [in] devinfo the list entry to open.
 * @param [out] dev receives the opened device; close it with doca_dev_close().
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_NO_MEMORY when allocation fails; DOCA_ERROR_NOT_CONNECTED when the
 * device cannot be reached; DOCA_ERROR_INITIALIZATION when too many handles are
 * already open; DOCA_ERROR_NOT_SUPPORTED when the device cannot be opened this way.
 */
DOCA_STABLE
doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev);

/**
 * @brief Drops one reference taken by doca_dev_open().
 *
 * @param [in] dev the device to close.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL device;
 * DOCA_ERROR_IN_USE while other DOCA objects still rely on the device.
 */
DOCA_STABLE
doca_error_t doca_dev_close(struct doca_dev *dev);

/**
 * @brief Opens a listed representor.
 *
 * @param [in] devinfo the representor list entry to open.
 * @param [out] dev_rep receives the opened representor; close it with doca_dev_rep_close().
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * another DOCA error code when the representor cannot be opened.
 */
DOCA_STABLE
doca_error_t doca_dev_rep_open(struct doca_devinfo_rep *devinfo, struct doca_dev_rep **dev_rep);

/**
 * @brief Closes an opened representor.
 *
 * @param [in] dev the representor to close.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL representor;
 * another DOCA error code when it cannot be closed.
 */
DOCA_STABLE
doca_error_t doca_dev_rep_close(struct doca_dev_rep *dev);

/**
 * @brief The description behind an opened device.
 *
 * @param [in] dev an opened device.
 * @return its devinfo, valid as long as the device is open; NULL for a NULL device.
 */
DOCA_STABLE
struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev);

/**
 * @brief The description behind an opened representor.
 *
 * @param [in] dev_rep an opened representor.
 * @return its representor description, valid as long as it is open; NULL for a NULL argument.
 */
DOCA_STABLE
struct doca_devinfo_rep *doca_dev_rep_as_devinfo(struct doca_dev_rep *dev_rep);

/**
 * @brief Writes the device's PCI address as text, for example "0000:03:00.0".
 *
 * @param [in] devinfo the device.
 * @param [out] pci_addr_str a buffer of at least DOCA_DEVINFO_PCI_ADDR_SIZE bytes.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo, char *pci_addr_str);

/**
 * @brief Tells whether a device sits at a given PCI address.
 *
 * @param [in] devinfo the device.
 * @param [in] pci_addr_str the address to compare with, as text.
 * @param [out] is_equal receives 1 when they match, 0 otherwise.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL or malformed argument.
 */
DOCA_STABLE
doca_error_t doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo, const char *pci_addr_str,
					    uint8_t *is_equal);

/**
 * @brief Writes the name of the network interface tied to the device.
 *
 * @param [in] devinfo the device.
 * @param [out] iface_name the buffer to fill.
 * @param [in] size its length in bytes; DOCA_DEVINFO_IFACE_NAME_SIZE is always enough.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument or a
 * buffer that is too small.
 */
DOCA_STABLE
doca_error_t doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo, char *iface_name, uint32_t size);

/**
 * @brief Writes the InfiniBand device name (for example "mlx5_0").
 *
 * @param [in] devinfo the device.
 * @param [out] ibdev_name the buffer to fill.
 * @param [in] size its length in bytes; DOCA_DEVINFO_IBDEV_NAME_SIZE is always enough.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument or a
 * buffer that is too small.
 */
DOCA_STABLE
doca_error_t doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo, char *ibdev_name, uint32_t size);

/**
 * @brief Copies the device's MAC address.
 *
 * @param [in] devinfo the device.
 * @param [out] mac_addr the buffer to fill.
 * @param [in] size its length; at least DOCA_DEVINFO_MAC_ADDR_SIZE.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument or a
 * buffer that is too small; another DOCA error code when the address cannot be read.
 */
DOCA_STABLE
doca_error_t doca_devinfo_get_mac_addr(const struct doca_devinfo *devinfo, uint8_t *mac_addr, uint32_t size);

/**
 * @brief Copies the device's IPv4 address.
 *
 * @param [in] devinfo the device.
 * @param [out] ipv4_addr the buffer to fill.
 * @param [in] size its length; at least DOCA_DEVINFO_IPV4_ADDR_SIZE.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument or a
 * buffer that is too small; another DOCA error code when no address can be read.
 */
DOCA_STABLE
doca_error_t doca_devinfo_get_ipv4_addr(const struct doca_devinfo *devinfo, uint8_t *ipv4_addr, uint32_t size);

/**
 * @brief Copies the device's IPv6 address.
 *
 * @param [in] devinfo the device.
 * @param [out] ipv6_addr the buffer to fill.
 * @param [in] size its length; at least DOCA_DEVINFO_IPV6_ADDR_SIZE.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument or a
 * buffer that is too small; another DOCA error code when no address can be read.
 */
DOCA_STABLE
doca_error_t doca_devinfo_get_ipv6_addr(const struct doca_devinfo *devinfo, uint8_t *ipv6_addr, uint32_t size);

/**
 * @brief Reads the device port's InfiniBand local identifier (LID).
 *
 * @param [in] devinfo the device.
 * @param [out] lid receives the LID.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_devinfo_get_lid(const struct doca_devinfo *devinfo, uint16_t *lid);

/**
 * @brief Reads the device's virtual HCA id.
 *
 * @param [in] devinfo the device.
 * @param [out] vhca_id receives the id.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_devinfo_get_vhca_id(const struct doca_devinfo *devinfo, uint16_t *vhca_id);

/**
 * @brief Tells whether the device can list network representors
 * (DOCA_DEVINFO_REP_FILTER_NET).
 *
 * On a BlueField this is true only when running on its Arm side.
 *
 * @param [in] devinfo the device.
 * @param [out] filter_net_supported receives 1 when supported, 0 otherwise.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_devinfo_rep_cap_is_filter_net_supported(const struct doca_devinfo *devinfo,
							  uint8_t *filter_net_supported);

#if DOCA_VERSION_LTE_CURRENT(3, 1, 0)
/**
 * @brief Tells whether the device is a physical, virtual or scalable function.
 *
 * @note The shape of this declaration is inferred from how DOCA 3.1 and later
 * samples call it; it is absent from DOCA 3.0 (hence the release guard) and no
 * header text was checked.
 *
 * @param [in] devinfo the device.
 * @param [out] pci_func_type receives the function type.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_devinfo_get_pci_func_type(const struct doca_devinfo *devinfo,
					    enum doca_pci_func_type *pci_func_type);
#endif /* DOCA 3.1 */

/**
 * @brief Asks the driver to give back the device's released resources sooner.
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED (see
 * doca_devinfo_cap_is_accelerate_resource_reclaim_supported()).
 *
 * @param [in] dev an opened device.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL device;
 * DOCA_ERROR_NOT_SUPPORTED when the device cannot do it.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dev_accelerate_resource_reclaim(struct doca_dev *dev);

/**
 * @brief Reads the port's active link rate.
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] devinfo the device.
 * @param [out] active_rate receives the rate.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_devinfo_get_active_rate(const struct doca_devinfo *devinfo, uint64_t *active_rate);

/**
 * @brief Tells whether the device can manage PCI hot-plug of emulated functions.
 *
 * doca-sim: always 0 (the simulated devices emulate no PCI functions).
 *
 * @param [in] devinfo the device.
 * @param [out] is_hotplug_manager receives 1 when supported, 0 otherwise.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_devinfo_cap_is_hotplug_manager_supported(const struct doca_devinfo *devinfo,
							   uint8_t *is_hotplug_manager);

/**
 * @brief Tells whether the device can moderate completion notifications.
 *
 * doca-sim: always 0.
 *
 * @param [in] devinfo the device.
 * @param [out] is_notification_moderation_supported receives 1 when supported, 0 otherwise.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_devinfo_cap_is_notification_moderation_supported(const struct doca_devinfo *devinfo,
								   uint8_t *is_notification_moderation_supported);

/**
 * @brief Tells whether representors can be listed with DOCA_DEVINFO_REP_FILTER_ALL.
 *
 * doca-sim: 1 exactly when the device has representors in its profile (as for
 * the network filter).
 *
 * @param [in] devinfo the device.
 * @param [out] filter_all_supported receives 1 when supported, 0 otherwise.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_devinfo_rep_cap_is_filter_all_supported(const struct doca_devinfo *devinfo,
							  uint8_t *filter_all_supported);

/**
 * @brief Tells whether emulated-function representors can be listed
 * (DOCA_DEVINFO_REP_FILTER_EMULATED).
 *
 * doca-sim: always 0.
 *
 * @param [in] devinfo the device.
 * @param [out] filter_emulated_supported receives 1 when supported, 0 otherwise.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_devinfo_rep_cap_is_filter_emulated_supported(const struct doca_devinfo *devinfo,
							       uint8_t *filter_emulated_supported);

/**
 * @brief Tells whether doca_dev_accelerate_resource_reclaim() can be used.
 *
 * doca-sim: always 0.
 *
 * @param [in] devinfo the device.
 * @param [out] is_accelerate_resource_reclaim receives 1 when supported, 0 otherwise.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_devinfo_cap_is_accelerate_resource_reclaim_supported(const struct doca_devinfo *devinfo,
									uint8_t *is_accelerate_resource_reclaim);

/**
 * @brief Writes a representor's vendor-unique id.
 *
 * doca-sim: the parent device's InfiniBand name and the representor's
 * interface name, joined by '-'.
 *
 * @param [in] devinfo_rep the representor.
 * @param [out] rep_vuid the buffer to fill.
 * @param [in] size its length; DOCA_DEVINFO_REP_VUID_SIZE is always enough.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument or
 * a buffer that is too small.
 */
DOCA_STABLE
doca_error_t doca_devinfo_rep_get_vuid(const struct doca_devinfo_rep *devinfo_rep, char *rep_vuid, uint32_t size);

/**
 * @brief Writes the PCI address of the function a representor stands for.
 *
 * @param [in] devinfo_rep the representor.
 * @param [out] pci_addr_str a buffer of at least DOCA_DEVINFO_REP_PCI_ADDR_SIZE bytes.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_devinfo_rep_get_pci_addr_str(const struct doca_devinfo_rep *devinfo_rep, char *pci_addr_str);

/**
 * @brief Tells whether a representor stands for a physical, virtual or scalable function.
 *
 * @param [in] devinfo_rep the representor.
 * @param [out] pci_func_type receives the function type.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_devinfo_rep_get_pci_func_type(const struct doca_devinfo_rep *devinfo_rep,
						enum doca_pci_func_type *pci_func_type);

/**
 * @brief Tells whether a representor stands for a hot-plugged function.
 *
 * doca-sim: always 0.
 *
 * @param [in] devinfo_rep the representor.
 * @param [out] is_hotplug receives 1 for a hot-plugged function, 0 otherwise.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_devinfo_rep_get_is_hotplug(const struct doca_devinfo_rep *devinfo_rep, uint8_t *is_hotplug);

/**
 * @brief Writes a representor's network interface name.
 *
 * @param [in] devinfo_rep the representor.
 * @param [out] iface_name the buffer to fill.
 * @param [in] size its length; DOCA_DEVINFO_IFACE_NAME_SIZE is always enough.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument or
 * a buffer that is too small.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_devinfo_rep_get_iface_name(const struct doca_devinfo_rep *devinfo_rep, char *iface_name,
					     uint32_t size);

/**
 * @brief Reads a representor's virtual HCA id.
 *
 * doca-sim: the parent device's id times 256 plus the representor's position.
 *
 * @param [in] devinfo_rep the representor.
 * @param [out] vhca_id receives the id.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_devinfo_rep_get_vhca_id(const struct doca_devinfo_rep *devinfo_rep, uint16_t *vhca_id);

/**
 * @brief Tells whether a representor stands for the function at a given PCI address.
 *
 * @param [in] devinfo_rep the representor.
 * @param [in] pci_addr_str the address to compare with, as text.
 * @param [out] is_equal receives 1 when they match, 0 otherwise.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_devinfo_rep_is_equal_pci_addr(const struct doca_devinfo_rep *devinfo_rep, const char *pci_addr_str,
						uint8_t *is_equal);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DEV_H_ */
